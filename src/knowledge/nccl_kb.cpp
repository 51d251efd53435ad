#include "knowledge/nccl_kb.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <set>

#include "core/embedded.h"

namespace trainready {
namespace {

// `info_failure` (why an entry that warns reads a format NCCL prints only at INFO) is review data
// for tools/nccl_kb_coverage.py; the reader accepts it and does not use it.
const std::set<std::string> kEntryKeys = {
    "id",       "match", "level",  "kind",   "versions", "in_file",      "fixed_in",   "what",
    "severity", "rank",  "causes", "source", "doc",      "info_failure", "consequence"};
const std::set<std::string> kCauseKeys = {"cause", "when", "fix", "confirm"};
const std::set<std::string> kWhenKeys = {"link_layer", "net",        "plugin",  "env",   "nccl",
                                         "driver",     "multi_node", "log_has", "mnnvl", "gdr"};

struct Where {
  std::string text;
  bool compile = true;  // compile each regex now (else when first searched)
  [[noreturn]] void fail(const std::string& what) const { throw NcclKbError(text + ": " + what); }
};

std::string scalar(const YAML::Node& n, const Where& w, const std::string& key, bool required) {
  const YAML::Node v = n[key];
  if (!v) {
    if (required) w.fail("missing '" + key + "'");
    return "";
  }
  if (!v.IsScalar()) w.fail("'" + key + "' must be text");
  return v.as<std::string>();
}

NcclKbRegex regex(const std::string& text, const Where& w, const std::string& key) {
  NcclKbRegex r(text, w.text + ": '" + key + "'");
  if (w.compile) (void)r.re();  // throws NcclKbError naming the file, the entry and the key
  return r;
}

std::optional<bool> boolean(const YAML::Node& n, const Where& w, const std::string& key) {
  const YAML::Node v = n[key];
  if (!v) return std::nullopt;
  const std::string s = v.IsScalar() ? v.as<std::string>() : "";
  if (s == "true") return true;
  if (s == "false") return false;
  w.fail("when-key '" + key + "' must be true or false");
}

void check_versions(const std::string& spec, const Where& w, const std::string& key) {
  try {
    nccl_version_in("2.18.1", spec);
  } catch (const std::invalid_argument& e) {
    w.fail("'" + key + "': " + e.what());
  }
}

NcclKbWhen parse_when(const YAML::Node& n, const Where& w) {
  NcclKbWhen r;
  if (!n) return r;
  if (!n.IsMap()) w.fail("'when' must be a map");
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (!kWhenKeys.count(k)) w.fail("unknown when-key '" + k + "'");
  }
  r.link_layer = scalar(n, w, "link_layer", false);
  if (!r.link_layer.empty() && r.link_layer != "InfiniBand" && r.link_layer != "Ethernet")
    w.fail("when-key 'link_layer' must be InfiniBand or Ethernet");
  for (const char* k : {"net", "plugin", "log_has"}) {
    std::string s = scalar(n, w, k, false);
    if (n[k]) (k[0] == 'n' ? r.net : k[0] == 'p' ? r.plugin : r.log_has) = regex(s, w, k);
  }
  r.nccl = scalar(n, w, "nccl", false);
  r.driver = scalar(n, w, "driver", false);
  check_versions(r.nccl, w, "nccl");
  check_versions(r.driver, w, "driver");
  r.multi_node = boolean(n, w, "multi_node");
  r.mnnvl = boolean(n, w, "mnnvl");
  r.gdr = boolean(n, w, "gdr");
  if (const YAML::Node e = n["env"]) {
    if (!e.IsMap()) w.fail("when-key 'env' must be a map NCCL_X: regex (or unset)");
    for (const auto& kv : e) {
      NcclKbEnv x;
      x.name = kv.first.as<std::string>();
      if (!kv.second.IsScalar()) w.fail("env " + x.name + ": expected a regex or 'unset'");
      const std::string v = kv.second.as<std::string>();
      if (v != "unset") x.value = regex(v, w, "env " + x.name);
      r.env.push_back(std::move(x));
    }
  }
  return r;
}

NcclKbEntry parse_entry(const YAML::Node& n, const std::string& file, const std::string& subsystem,
                        std::size_t index, bool compile) {
  Where w{file + ": entry " + std::to_string(index + 1), compile};
  if (!n.IsMap()) w.fail("expected a map");
  if (n["id"] && n["id"].IsScalar()) w.text = file + ": " + n["id"].as<std::string>();
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (!kEntryKeys.count(k)) w.fail("unknown key '" + k + "'");
  }
  NcclKbEntry e;
  e.file = file;
  e.subsystem = subsystem;
  e.id = scalar(n, w, "id", true);
  e.match = regex(scalar(n, w, "match", true), w, "match");
  e.literal = nccl_kb_required_literal(e.match.text);
  e.what = scalar(n, w, "what", true);
  e.source = scalar(n, w, "source", true);
  e.doc = scalar(n, w, "doc", false);
  (void)scalar(n, w, "info_failure", false);  // text, when given
  e.versions = scalar(n, w, "versions", false);
  check_versions(e.versions, w, "versions");
  if (n["in_file"]) e.in_file = regex(scalar(n, w, "in_file", true), w, "in_file");
  e.fixed_in = scalar(n, w, "fixed_in", false);
  if (!e.fixed_in.empty()) check_versions("<" + e.fixed_in, w, "fixed_in");
  const std::string level = scalar(n, w, "level", false);
  if (level == "WARN")
    e.level = NcclKbLevel::kWarn;
  else if (level == "INFO")
    e.level = NcclKbLevel::kInfo;
  else if (!level.empty())
    w.fail("level must be WARN or INFO");
  const std::string kind = scalar(n, w, "kind", false);
  if (kind == "trail")
    e.kind = NcclKbKind::kTrail;
  else if (kind == "passthrough")
    e.kind = NcclKbKind::kPassthrough;
  else if (!kind.empty())
    w.fail("kind must be 'trail' or 'passthrough'");
  const std::string sev = scalar(n, w, "severity", true);
  auto s = parse_severity(sev);
  if (!s) w.fail("severity must be error, warning or info");
  e.severity = *s;
  if (n["rank"]) {
    try {
      e.rank = n["rank"].as<int>();
    } catch (const YAML::Exception&) {
      e.rank = -1;
    }
    if (e.rank < 0 || e.rank > 100) w.fail("rank must be an integer 0..100");
  }
  if (n["consequence"]) {
    const std::string c = scalar(n, w, "consequence", true);
    if (c != "true" && c != "false") w.fail("consequence must be true or false");
    e.consequence = c == "true";
  }
  const YAML::Node causes = n["causes"];
  if (!causes || !causes.IsSequence() || causes.size() == 0)
    w.fail("causes must be a non-empty list");
  for (std::size_t j = 0; j < causes.size(); ++j) {
    Where cw{w.text + ": cause " + std::to_string(j + 1), w.compile};
    const YAML::Node c = causes[j];
    if (!c.IsMap()) cw.fail("expected a map");
    for (const auto& kv : c) {
      const std::string k = kv.first.as<std::string>();
      if (!kCauseKeys.count(k)) cw.fail("unknown key '" + k + "'");
    }
    NcclKbCause x;
    x.cause = scalar(c, cw, "cause", true);
    x.fix = scalar(c, cw, "fix", true);
    x.confirm = scalar(c, cw, "confirm", true);
    x.when = parse_when(c["when"], cw);
    e.causes.push_back(std::move(x));
  }
  return e;
}

}  // namespace

struct NcclKbRegex::Compiled {
  std::once_flag once;
  std::regex re;
  std::string where;
  std::string error;  // set when the pattern did not compile
};

NcclKbRegex::NcclKbRegex(std::string t, std::string where)
    : text(std::move(t)), c_(std::make_shared<Compiled>()) {
  c_->where = std::move(where);
}

const std::regex& NcclKbRegex::re() const {
  std::call_once(c_->once, [this] {
    try {
      c_->re = std::regex(text, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      c_->error = c_->where + " is not a valid regex (" + e.what() + "): " + text;
    }
  });
  if (!c_->error.empty()) throw NcclKbError(c_->error);
  return c_->re;
}

NcclKnowledgeBase NcclKnowledgeBase::parse(
    const std::vector<std::pair<std::string, std::string>>& files, bool compile_regexes) {
  NcclKnowledgeBase kb;
  std::set<std::string> ids;
  for (const auto& [name, text] : files) {
    YAML::Node doc;
    try {
      doc = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw NcclKbError(name + ":" + std::to_string(e.mark.line + 1) +
                        ": not valid YAML: " + e.msg);
    }
    if (!doc.IsMap() || !doc["subsystem"] || !doc["subsystem"].IsScalar() || !doc["entries"] ||
        !doc["entries"].IsSequence())
      throw NcclKbError(name + ": expected a map with 'subsystem' (text) and 'entries' (list)");
    const std::string subsystem = doc["subsystem"].as<std::string>();
    try {
      const YAML::Node entries = doc["entries"];
      for (std::size_t i = 0; i < entries.size(); ++i) {
        NcclKbEntry e = parse_entry(entries[i], name, subsystem, i, compile_regexes);
        if (!ids.insert(e.id).second) throw NcclKbError(name + ": " + e.id + ": duplicate id");
        kb.entries_.push_back(std::move(e));
      }
      if (const YAML::Node f = doc["files"]) {
        if (!f.IsMap()) throw NcclKbError(name + ": 'files' must be a map prefix: subsystem");
        for (const auto& kv : f)
          kb.files_.push_back({kv.first.as<std::string>(), kv.second.as<std::string>()});
      }
    } catch (const YAML::Exception& e) {
      throw NcclKbError(name + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
  }
  std::stable_sort(
      kb.files_.begin(), kb.files_.end(),
      [](const NcclKbFile& a, const NcclKbFile& b) { return a.prefix.size() > b.prefix.size(); });
  return kb;
}

std::vector<std::pair<std::string, std::string>> NcclKnowledgeBase::builtin_files() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [name, text] : embedded_nccl_kb())
    files.emplace_back(std::string(name), std::string(text));
  return files;
}

const NcclKnowledgeBase& NcclKnowledgeBase::builtin() {
  static const NcclKnowledgeBase kb = parse(builtin_files(), false);
  return kb;
}

const NcclKbEntry* NcclKnowledgeBase::find(std::string_view id) const {
  for (const NcclKbEntry& e : entries_)
    if (e.id == id) return &e;
  return nullptr;
}

std::string NcclKnowledgeBase::subsystem_of_file(std::string_view file) const {
  // NCCL prints paths relative to src/ ("transport/net_ib.cc"); some builds print more.
  for (const NcclKbFile& f : files_) {
    std::size_t p = file.find(f.prefix);
    if (p != std::string_view::npos && (p == 0 || file[p - 1] == '/')) return f.subsystem;
  }
  return "";
}

std::string nccl_kb_required_literal(std::string_view p) {
  if (p.find('|') != std::string_view::npos) return "";
  std::string best, run;
  int depth = 0;
  bool in_class = false;
  auto cut = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  for (std::size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    char lit = 0;
    std::size_t next = i + 1;
    if (in_class) {
      if (c == '\\')
        ++i;
      else if (c == ']')
        in_class = false;
      continue;
    }
    if (c == '\\' && i + 1 < p.size()) {
      const char e = p[i + 1];
      next = i + 2;
      if (!std::isalnum(static_cast<unsigned char>(e))) lit = e;
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (std::string_view("^$.*+?{}").find(c) == std::string_view::npos) {
      lit = c;
    }
    const char q = next < p.size() ? p[next] : 0;
    if (lit && depth == 0 && q != '?' && q != '*' && q != '{') {
      run += lit;
      if (q == '+') cut();
    } else {
      cut();
    }
    i = next - 1;
  }
  cut();
  return best;
}

namespace {
std::vector<int> components(std::string_view v) {
  std::vector<int> r;
  std::size_t i = 0;
  while (i < v.size() && r.size() < 4) {
    if (v[i] < '0' || v[i] > '9') break;
    int x = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') x = x * 10 + (v[i++] - '0');
    r.push_back(x);
    if (i < v.size() && v[i] == '.')
      ++i;
    else
      break;
  }
  return r;
}
}  // namespace

bool nccl_version_in(std::string_view version, std::string_view spec) {
  const std::vector<int> v = components(version);
  bool ok = true;
  while (!spec.empty()) {
    std::size_t comma = spec.find(',');
    std::string_view part = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (part.empty()) continue;
    std::string_view op;
    for (std::string_view o : {">=", "<=", "==", ">", "<"})
      if (part.substr(0, o.size()) == o) {
        op = o;
        break;
      }
    std::string_view ref_text = part.substr(op.size());
    while (!ref_text.empty() && ref_text.front() == ' ') ref_text.remove_prefix(1);
    const std::vector<int> ref = components(ref_text);
    std::size_t digits = 0;
    for (char c : ref_text) digits += (c >= '0' && c <= '9') || c == '.';
    if (op.empty() || ref.empty() || ref.size() > 3 || digits != ref_text.size())
      throw std::invalid_argument("versions '" + std::string(part) +
                                  "': expected e.g. '>=2.19,<2.21'");
    std::vector<int> cmp(v.begin(), v.begin() + std::min(v.size(), ref.size()));
    while (cmp.size() < ref.size()) cmp.push_back(0);
    const bool r = op == ">="   ? cmp >= ref
                   : op == "<=" ? cmp <= ref
                   : op == "==" ? cmp == ref
                   : op == ">"  ? cmp > ref
                                : cmp < ref;
    ok = ok && r;
  }
  return ok;
}

}  // namespace trainready
