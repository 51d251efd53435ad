#include "iac/parameter_values.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "core/input_error.h"
#include "core/root.h"
#include "core/text.h"

namespace trainready {

using json = nlohmann::json;

const json* arm_find_ci(const json& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  if (auto it = obj.find(key); it != obj.end()) return &*it;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (iequals(it.key(), key)) return &it.value();
  }
  return nullptr;
}

bool looks_like_arm_parameters(const json& doc) {
  if (!doc.is_object()) return false;
  if (const json* s = arm_find_ci(doc, "$schema"); s != nullptr && s->is_string())
    return icontains(s->get<std::string>(), "deploymentParameters");
  // Without "$schema" (or with it misspelt, as in published samples): a "parameters" object
  // whose every entry is {"value": ...} or {"reference": ...}, and no "resources".
  if (arm_find_ci(doc, "resources") != nullptr) return false;
  const json* ps = arm_find_ci(doc, "parameters");
  if (ps == nullptr || !ps->is_object() || ps->empty()) return false;
  return std::all_of(ps->begin(), ps->end(), [](const json& v) {
    return arm_find_ci(v, "value") != nullptr || arm_find_ci(v, "reference") != nullptr;
  });
}

namespace {

// The entries of a parameters object ({"name": {"value": ...} | {"reference": ...}}). `doc`
// and `base` locate it in a file; without a document the values came from a -p JSON text.
void read_parameter_object(const json& ps, const LocatedJson* doc, const std::string& base,
                           const std::string& file, ArmParameterValues* out) {
  for (auto it = ps.begin(); it != ps.end(); ++it) {
    const std::string key = to_lower(it.key());
    const std::string ptr = base + "/" + json_pointer_token(it.key());
    auto where = [&](const std::string& member) {
      return doc != nullptr ? Provenance{file, doc->line_of(ptr + "/" + member)}
                            : Provenance{file, 0};
    };
    const int line = doc != nullptr ? doc->line_of(ptr) : 0;
    if (!it.value().is_object())
      throw InputError(file, line, "expected {\"value\": ...} for parameter '" + it.key() + "'");
    ArmParameterValue v;
    if (const json* value = arm_find_ci(it.value(), "value")) {
      v.value = *value;
      v.where = where("value");
    } else if (arm_find_ci(it.value(), "reference") != nullptr) {
      v.key_vault = true;  // the reference itself (vault id, secret name) is never kept
      v.where = where("reference");
    } else {
      throw InputError(file, line,
                       "expected \"value\" or \"reference\" in parameter '" + it.key() + "'");
    }
    out->values[key] = std::move(v);
  }
}

std::string read_text(const std::string& path, const std::string& shown) {
  std::error_code ec;
  if (auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxDeploymentBytes)
    throw InputError(shown, 0, "larger than the bound on a deployment file");
  FileRead r = FsRoot("/").read_file(path, kMaxDeploymentBytes);
  if (!r.ok()) throw InputError(shown, 0, "cannot read: " + r.error);
  return std::move(r.data);
}

// A file of parameters as az reads it for --parameters: the "parameters" object of a
// parameters file, or the object itself.
void read_parameters_file(const std::string& path, ArmParameterValues* out) {
  LocatedJson doc = parse_located_json(read_text(path, path), path, JsonDialect::kArm);
  if (const json* ps = arm_find_ci(doc.value, "parameters"); ps != nullptr && ps->is_object()) {
    read_parameter_object(*ps, &doc, "/parameters", path, out);
  } else if (doc.value.is_object()) {
    read_parameter_object(doc.value, &doc, "", path, out);
  } else {
    throw InputError(path, 1,
                     "expected an ARM parameters file (\"parameters\": {\"name\": {\"value\": "
                     "...}})");
  }
}

bool is_regular_file(const std::string& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

}  // namespace

void read_arm_parameters(const LocatedJson& doc, const std::string& file, ArmParameterValues* out) {
  const json* ps = arm_find_ci(doc.value, "parameters");
  if (ps == nullptr || !ps->is_object())
    throw InputError(file, 1, "expected an ARM parameters file with a \"parameters\" object");
  read_parameter_object(*ps, &doc, "/parameters", file, out);
}

// azure-cli reads each item of --parameters in this order (command_modules/resource/custom.py,
// _process_parameters): a file, a JSON object, a URI, name=value; and before that, the core
// expands a leading '@' (and a value's leading '@' after "name=") into the file's text
// (azure/cli/core/commands/__init__.py, _expand_file_prefixed_files). URIs are not fetched here.
void add_cli_parameter(const std::string& arg, ArmParameterValues* out) {
  const std::string shown = "-p " + arg;
  if (arg.size() > 1 && arg[0] == '@') {
    read_parameters_file(arg.substr(1), out);
    return;
  }
  if (arg.find('=') == std::string::npos && is_regular_file(arg)) {
    read_parameters_file(arg, out);
    return;
  }
  if (auto j = parse_embedded_json(arg); j && j->is_object()) {
    const json* ps = arm_find_ci(*j, "parameters");
    read_parameter_object(ps != nullptr && ps->is_object() ? *ps : *j, nullptr, "", "-p (JSON)",
                          out);
    return;
  }
  const auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(shown, 0,
                     "expected name=value, @FILE, a parameters file or a JSON object of "
                     "parameters");
  const std::string name = arg.substr(0, eq);
  std::string text = arg.substr(eq + 1);
  if (text.size() > 1 && text[0] == '@') {
    text = read_text(text.substr(1), shown);
    while (!text.empty() && text.back() == '\n') text.pop_back();  // az: rstrip(os.linesep)
  }
  ArmParameterValue v;
  v.value = std::move(text);
  v.cli_text = true;
  v.where = Provenance{"-p " + name, 0};
  out->values[to_lower(name)] = std::move(v);
}

namespace {

std::string type_word(const json& v) {
  if (v.is_boolean()) return "bool";
  if (v.is_number_integer()) return "int";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return v.type_name();
}

std::string declared_type(const json& decl) {
  const json* t = arm_find_ci(decl, "type");
  return t != nullptr && t->is_string() ? to_lower(t->get<std::string>()) : std::string();
}

bool is_secure(const std::string& type) { return type == "securestring" || type == "secureobject"; }

std::string clip(std::string s, std::size_t n) {
  if (s.size() > n) s = s.substr(0, n) + "...";
  return s;
}

// How a value is quoted in a message: secure values never are.
std::string shown_value(const json& v, const std::string& type) {
  if (is_secure(type)) return "(a " + type + " value, not shown)";
  return clip(v.dump(), 120);
}

// Python's int() as az calls it: surrounding whitespace, a sign, digits with single '_'
// between them. nullopt when it would raise, or when the number does not fit ARM's 64 bits.
std::optional<long long> python_int(const std::string& text) {
  std::string s(trim(text));
  std::string digits;
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) digits += s[i++];
  bool last_digit = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      digits += c;
      last_digit = true;
    } else if (c == '_' && last_digit && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') {
      last_digit = false;
    } else {
      return std::nullopt;
    }
  }
  if (digits.empty() || digits == "+" || digits == "-") return std::nullopt;
  if (auto r = parse_int(digits[0] == '+' ? digits.substr(1) : digits)) return *r;
  return std::nullopt;
}

// A -p text converted by the declared type as az converts it (custom.py,
// _try_parse_key_value_object); nullopt with `why` set when az would refuse it or change it.
std::optional<json> convert_cli_text(const std::string& text, const std::string& type,
                                     std::string* why) {
  if (type == "object" || type == "array" || type == "secureobject") {
    if (auto j = parse_embedded_json(text)) return *j;
    *why = "is not JSON (az reads an " + type + " value given as name=value as JSON)";
    return std::nullopt;
  }
  if (type == "bool") {
    if (iequals(text, "true")) return json(true);
    if (iequals(text, "false")) return json(false);
    *why = "is neither true nor false (az would pass false: it compares the text with 'true')";
    return std::nullopt;
  }
  if (type == "int") {
    if (auto i = python_int(text)) return json(*i);
    *why = "is not a whole number (az refuses it: int() cannot read it)";
    return std::nullopt;
  }
  return json(text);  // string, securestring, or no type: az passes the text
}

// ARM's checks of a value against its declaration; "" when it passes.
std::string arm_refusal(const json& decl, const json& v) {
  std::string want = declared_type(decl);
  if (!want.empty()) {
    if (want == "securestring") want = "string";
    if (want == "secureobject") want = "object";
    if (want != type_word(v)) {
      const json* t = arm_find_ci(decl, "type");
      return "is not of type " + t->get<std::string>() + " (it is " + type_word(v) + ")";
    }
  }
  if (const json* allowed = arm_find_ci(decl, "allowedValues"); allowed && allowed->is_array()) {
    auto in = [&](const json& x) {
      for (const auto& a : *allowed) {
        if (a == x) return true;
        // Compared without case, so a value ARM may accept is never refused here.
        if (a.is_string() && x.is_string() && iequals(a.get<std::string>(), x.get<std::string>()))
          return true;
      }
      return false;
    };
    bool ok = v.is_array() && !allowed->empty() && !(*allowed)[0].is_array()
                  ? std::all_of(v.begin(), v.end(), in)
                  : in(v);
    if (!ok) return "is not one of the allowedValues " + clip(allowed->dump(), 200);
  }
  if (v.is_number_integer()) {
    const long long x = v.get<long long>();
    if (const json* lo = arm_find_ci(decl, "minValue");
        lo && lo->is_number_integer() && x < lo->get<long long>())
      return "is below minValue " + lo->dump();
    if (const json* hi = arm_find_ci(decl, "maxValue");
        hi && hi->is_number_integer() && x > hi->get<long long>())
      return "is above maxValue " + hi->dump();
  }
  if (v.is_string() || v.is_array()) {
    const std::size_t n = v.is_string() ? v.get_ref<const std::string&>().size() : v.size();
    if (const json* lo = arm_find_ci(decl, "minLength");
        lo && lo->is_number_integer() && static_cast<long long>(n) < lo->get<long long>())
      return "is shorter than minLength " + lo->dump();
    if (const json* hi = arm_find_ci(decl, "maxLength");
        hi && hi->is_number_integer() && static_cast<long long>(n) > hi->get<long long>())
      return "is longer than maxLength " + hi->dump();
  }
  return {};
}

bool upper_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

// A value its authors left for the user to fill: what kind of placeholder, or "".
std::string placeholder_kind(const json& decl, const json& v) {
  if (v.is_null()) return "null, where the template needs a value";
  if (!v.is_string()) return {};
  const std::string& s = v.get_ref<const std::string&>();
  const std::string type = declared_type(decl);
  if (s.empty()) {
    // "" where the template has a default may be a choice; where it has none, or where the
    // declared type is not text at all, it is a blank left in the file.
    const bool text = type.empty() || type == "string" || type == "securestring";
    if (!text) return "an empty string for a parameter of type " + type;
    if (arm_find_ci(decl, "defaultValue") == nullptr)
      return "an empty value for a parameter the template requires";
    return {};
  }
  // The quickstart CI's placeholders (1-CONTRIBUTION-GUIDE/README.md, "Parameters File
  // Placeholders"): GEN-UNIQUE[-N], GEN-PASSWORD, GEN-SSH-PUB-KEY, ..., GET-PREREQ-<output>.
  if (s.rfind("GEN-", 0) == 0 && upper_token(std::string_view(s).substr(4)))
    return "a GEN-* placeholder of the Azure quickstart templates";
  if (s.rfind("GET-PREREQ-", 0) == 0 && s.size() > 11)
    return "a GET-PREREQ-* placeholder of the Azure quickstart templates";
  const std::string u = [&] {
    std::string r = s;
    for (auto& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return r;
  }();
  for (const char* p : {"REPLACE_ME", "REPLACE-ME", "REPLACEME", "CHANGE_ME", "CHANGE-ME",
                        "CHANGEME", "FILL_ME", "FILL-ME", "TODO"})
    if (u.rfind(p, 0) == 0 && upper_token(u)) return "a " + std::string(p) + " placeholder";
  // "<your-vnet>", "/subscriptions/<subscription-id>/...": an angle-bracketed name in a
  // one-line value (markup such as "<a></a>" has a closing tag and is not one).
  if (s.find('\n') == std::string::npos && s.find("</") == std::string::npos) {
    const auto open = s.find('<');
    const auto close = open == std::string::npos ? open : s.find('>', open);
    if (close != std::string::npos && close > open + 1) {
      const std::string_view inner = std::string_view(s).substr(open + 1, close - open - 1);
      if (std::all_of(inner.begin(), inner.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' ||
                   c == ' ' || c == '.';
          }))
        return "an angle-bracketed placeholder";
    }
  }
  return {};
}

// "type int, minValue 1, maxValue 10": the declaration, for evidence.
std::string describe(const json& decl) {
  std::string out;
  for (const char* k :
       {"type", "allowedValues", "minValue", "maxValue", "minLength", "maxLength"}) {
    const json* v = arm_find_ci(decl, k);
    if (v == nullptr) continue;
    if (!out.empty()) out += ", ";
    out += std::string(k) + " " + clip(v->is_string() ? v->get<std::string>() : v->dump(), 120);
  }
  if (arm_find_ci(decl, "defaultValue") == nullptr) out += out.empty() ? "required" : ", required";
  return out;
}

}  // namespace

CheckedParameters check_arm_parameters(const LocatedJson& doc, const std::string& file,
                                       const ArmParameterValues& params) {
  CheckedParameters out;
  const json* decls = arm_find_ci(doc.value, "parameters");
  for (const auto& [k, supplied] : params.values) {
    // The spelling of the template, not the lower-case key.
    std::string name = k;
    const json* decl = nullptr;
    if (decls != nullptr && decls->is_object()) {
      for (auto it = decls->begin(); it != decls->end(); ++it) {
        if (iequals(it.key(), k)) {
          name = it.key();
          decl = &it.value();
        }
      }
    }
    ParameterProblem p;
    p.name = name;
    p.where = supplied.where;
    if (decl == nullptr || !decl->is_object()) {
      out.given[k] = supplied.key_vault ? ArmValue::unknown("a Key Vault reference")
                                        : ArmValue::of(supplied.value);
      if (!params.report_undeclared) continue;
      p.message = "parameter '" + name + "' is not declared by the template";
      p.declared = Provenance{file, doc.line_of("/parameters")};
      p.declaration = "not declared";
      out.problems.push_back(std::move(p));
      continue;
    }
    p.declared = Provenance{file, doc.line_of("/parameters/" + json_pointer_token(name))};
    p.declaration = describe(*decl);
    const std::string type = declared_type(*decl);
    if (supplied.key_vault) {
      out.given[k] = ArmValue::unknown("parameter '" + name + "' is a Key Vault reference");
      out.notes.push_back(supplied.where.str() + ": parameter '" + name +
                          "' is a Key Vault reference, not resolved: ARM reads the secret when "
                          "it deploys; lint neither reads nor shows it, and the value is unknown");
      continue;
    }
    json value = supplied.value;
    std::string why;
    if (supplied.cli_text) {
      auto converted = convert_cli_text(value.get<std::string>(), type, &why);
      if (converted) value = std::move(*converted);
    } else if (value.is_string()) {
      // A file's "4" for an int (or "true" for a bool, "[...]" for an array) is read as that
      // value, not refused: whether Resource Manager converts it is not documented, and a
      // refusal here would be a guess.
      std::string ignored;
      if (type == "int" || type == "bool" || type == "object" || type == "array")
        if (auto c = convert_cli_text(value.get<std::string>(), type, &ignored)) value = *c;
    }
    const std::string shown = "parameter '" + name + "' = " + shown_value(value, type);
    if (why.empty()) why = arm_refusal(*decl, value);
    const std::string left = placeholder_kind(*decl, value);
    if (why.empty() && left.empty()) {
      out.given[k] = ArmValue::of(std::move(value));
      continue;
    }
    p.placeholder = !left.empty();
    p.refused = !why.empty();
    if (p.refused && p.placeholder) {
      p.message = shown + " is a value left to fill (" + left + ") and " + why;
    } else if (p.refused) {
      p.message = shown + " " + why;
    } else {
      p.message = shown + " is a value left to fill (" + left + ")";
    }
    out.given[k] = ArmValue::unknown("parameter '" + name + "' has a value " +
                                     (p.refused ? "ARM would refuse" : "left to fill"));
    out.problems.push_back(std::move(p));
  }
  return out;
}

}  // namespace trainready
