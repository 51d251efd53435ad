#include "parsers/job_file.h"

#include <array>
#include <cmath>
#include <cstdio>

#include <toml++/toml.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include "core/input_error.h"
#include "core/located_json.h"
#include "core/text.h"
#include "parsers/job_settings.h"

namespace trainready {
namespace {

std::string number_text(double v) {
  std::array<char, 40> b{};
  std::snprintf(b.data(), b.size(), "%.17g", v);
  return b.data();
}

[[noreturn]] void not_flat(const std::string& file, int line, const std::string& key) {
  throw InputError(file, line,
                   "'" + key +
                       "' holds a table: expected flat `key = value` settings (a list "
                       "for sku and price; a table only under price, SIZE = USD)");
}

// A list is one entry per element, which suits sku and price; for any other key the elements
// would silently override each other, so the list is an error naming the key.
void check_list_allowed(const std::string& file, int line, const std::string& key) {
  std::string k = to_lower(trim(key));
  for (char& c : k) {
    if (c == '_') c = '-';
  }
  for (const JobSettingInfo& info : job_setting_keys()) {
    if (info.key != k || info.list) continue;
    throw InputError(file, line,
                     "'" + key + "' takes one value, not a list (only sku and price take lists)");
  }
}

// ---- TOML (toml++) ----

std::optional<std::string> toml_scalar(const toml::node& n) {
  if (auto s = n.value<std::string>(); s && n.is_string()) return *s;
  if (n.is_integer()) return std::to_string(*n.value<std::int64_t>());
  if (n.is_floating_point()) return number_text(*n.value<double>());
  if (n.is_boolean()) return *n.value<bool>() ? "true" : "false";
  return std::nullopt;
}

int toml_line(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

std::vector<JobFileEntry> parse_toml(std::string_view text, const std::string& file) {
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InputError(file, static_cast<int>(e.source().begin.line),
                     "not valid TOML: " + std::string(e.description()));
  }
  std::vector<JobFileEntry> out;
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    const int line = toml_line(v);
    if (auto s = toml_scalar(v)) {
      out.push_back({key, *s, line});
    } else if (const toml::array* a = v.as_array()) {
      check_list_allowed(file, line, key);
      for (const toml::node& e : *a) {
        auto item = toml_scalar(e);
        if (!item) not_flat(file, toml_line(e), key);
        out.push_back({key, *item, toml_line(e)});
      }
    } else if (const toml::table* t = v.as_table(); t && key == "price") {
      for (const auto& [size, usd] : *t) {
        auto item = toml_scalar(usd);
        if (!item) not_flat(file, toml_line(usd), key);
        out.push_back({key, std::string(size.str()) + "=" + *item, toml_line(usd)});
      }
    } else if (v.is_table()) {
      not_flat(file, line, key);
    } else {
      throw InputError(file, line, "'" + key + "': expected a string, number, boolean or list");
    }
  }
  return out;
}

// ---- YAML (yaml-cpp) ----

int yaml_line(const YAML::Node& n) { return n.Mark().line + 1; }

// A job file is flat; nesting this deep is a broken or hostile file. Counted here on the flow
// brackets so the error names the line (yaml-cpp stops at 2000 levels, with "bad file").
constexpr int kYamlMaxDepth = 64;

void check_yaml_depth(std::string_view text, const std::string& file) {
  int depth = 0;
  int line = 1;
  char quote = 0;
  bool comment = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      comment = false;
      continue;
    }
    if (comment) continue;
    if (quote) {
      if (c == '\\' && quote == '"')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n')) {
      comment = true;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      if (++depth > kYamlMaxDepth)
        throw InputError(file, line,
                         "nested more than " + std::to_string(kYamlMaxDepth) +
                             " levels deep: expected flat key: value settings");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

// The line of the `---` that starts a second document with something in it, or 0 (a trailing
// `---` adds nothing). Found on the text, not with YAML::LoadAll: on some malformed input
// (`"a",`) yaml-cpp 0.7's LoadAll never advances and collects empty documents without end.
int second_document_line(std::string_view text) {
  int line = 0;
  bool content = false;
  int second = 0;
  for (std::string_view l : split_lines(text)) {
    ++line;
    const bool marker = l.substr(0, 3) == "---" && (l.size() == 3 || l[3] == ' ' || l[3] == '\t');
    const std::string_view t = trim(marker ? l.substr(3) : l);
    const bool has = !t.empty() && t[0] != '#' && t[0] != '%';
    if (second > 0 && has) return second;
    if (marker && content && second == 0) {
      second = line;
      if (has) return second;
      continue;
    }
    if (marker || has) content = true;
  }
  return 0;
}

std::vector<JobFileEntry> parse_yaml(std::string_view text, const std::string& file) {
  check_yaml_depth(text, file);
  YAML::Node root;
  try {
    if (const int at = second_document_line(text); at > 0)
      throw InputError(file, at,
                       "a second YAML document starts here: a job file is one document (put "
                       "every setting in the first, or split the jobs into files)");
    root = YAML::Load(std::string(text));  // the first (and only) document
  } catch (const YAML::DeepRecursion& e) {
    throw InputError(file, e.mark.line + 1,
                     "nested " + std::to_string(e.depth()) +
                         " levels deep or more (the most the YAML reader follows): expected "
                         "flat key: value settings");
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line + 1, "not valid YAML: " + e.msg);
  }
  std::vector<JobFileEntry> out;
  if (root.IsNull()) return out;
  if (!root.IsMap()) throw InputError(file, yaml_line(root), "expected a mapping of key: value");
  try {
    for (const auto& kv : root) {
      if (!kv.first.IsScalar()) throw InputError(file, yaml_line(kv.first), "expected a plain key");
      const std::string key = kv.first.Scalar();
      const YAML::Node& v = kv.second;
      if (v.IsScalar()) {
        out.push_back({key, v.Scalar(), yaml_line(v)});
      } else if (v.IsSequence()) {
        check_list_allowed(file, yaml_line(v), key);
        for (const YAML::Node& e : v) {
          if (!e.IsScalar()) not_flat(file, yaml_line(e), key);
          out.push_back({key, e.Scalar(), yaml_line(e)});
        }
      } else if (v.IsMap() && key == "price") {
        for (const auto& p : v) {
          if (!p.first.IsScalar() || !p.second.IsScalar()) not_flat(file, yaml_line(p.first), key);
          out.push_back({key, p.first.Scalar() + "=" + p.second.Scalar(), yaml_line(p.second)});
        }
      } else if (v.IsNull()) {
        throw InputError(file, yaml_line(kv.first), "'" + key + "' has no value");
      } else {
        not_flat(file, yaml_line(v), key);
      }
    }
  } catch (const YAML::Exception& e) {
    throw InputError(file, e.mark.line + 1, "not valid YAML: " + e.msg);
  }
  return out;
}

// ---- JSON (nlohmann, with lines) ----

std::optional<std::string> json_scalar(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  if (j.is_number_integer()) return j.dump();
  if (j.is_number()) return number_text(j.get<double>());
  return std::nullopt;
}

std::vector<JobFileEntry> parse_json(std::string_view text, const std::string& file) {
  const LocatedJson doc = parse_located_json(text, file);
  if (!doc.value.is_object()) throw InputError(file, 1, "expected a JSON object of settings");
  std::vector<JobFileEntry> out;
  for (const auto& [key, v] : doc.value.items()) {
    const std::string ptr = "/" + json_pointer_token(key);
    const int line = doc.line_of(ptr);
    if (auto s = json_scalar(v)) {
      out.push_back({key, *s, line});
    } else if (v.is_array()) {
      check_list_allowed(file, line, key);
      std::size_t i = 0;
      for (const auto& e : v) {
        const int eline = doc.line_of(ptr + "/" + std::to_string(i++));
        auto item = json_scalar(e);
        if (!item) not_flat(file, eline, key);
        out.push_back({key, *item, eline});
      }
    } else if (v.is_object() && key == "price") {
      for (const auto& [size, usd] : v.items()) {
        const int pline = doc.line_of(ptr + "/" + json_pointer_token(size));
        auto item = json_scalar(usd);
        if (!item) not_flat(file, pline, key);
        out.push_back({key, size + "=" + *item, pline});
      }
    } else {
      if (v.is_null()) throw InputError(file, line, "'" + key + "' is null");
      not_flat(file, line, key);
    }
  }
  return out;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         iequals(std::string_view(s).substr(s.size() - suffix.size()), suffix);
}

}  // namespace

const char* to_string(JobFileFormat f) {
  switch (f) {
    case JobFileFormat::kToml:
      return "TOML";
    case JobFileFormat::kYaml:
      return "YAML";
    case JobFileFormat::kJson:
      return "JSON";
  }
  return "?";
}

JobFileFormat job_file_format(const std::string& path, std::string_view text) {
  if (ends_with(path, ".toml")) return JobFileFormat::kToml;
  if (ends_with(path, ".yaml") || ends_with(path, ".yml")) return JobFileFormat::kYaml;
  if (ends_with(path, ".json")) return JobFileFormat::kJson;
  for (std::string_view line : split_lines(text)) {
    const std::string_view t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    if (t[0] == '{') return JobFileFormat::kJson;
    const std::size_t eq = t.find('=');
    const std::size_t colon = t.find(':');
    if (t[0] == '[' ||
        (eq != std::string_view::npos && (colon == std::string_view::npos || eq < colon)))
      return JobFileFormat::kToml;
    return JobFileFormat::kYaml;
  }
  return JobFileFormat::kYaml;
}

std::vector<JobFileEntry> parse_job_file(std::string_view text, const std::string& file,
                                         JobFileFormat format) {
  if (text.find('\0') != std::string_view::npos)
    throw InputError(file, 0, "binary data: expected a TOML, YAML or JSON job description");
  switch (format) {
    case JobFileFormat::kToml:
      return parse_toml(text, file);
    case JobFileFormat::kYaml:
      return parse_yaml(text, file);
    case JobFileFormat::kJson:
      return parse_json(text, file);
  }
  return {};
}

}  // namespace trainready
