// The YAML form of the NCCL knowledge base (data/nccl-kb/README.md): the one definition of its
// schema and checks. The build runs it on data/nccl-kb/*.yaml (tools/nccl_kb_pack.cpp) and packs
// the result; the tests run it on the same files and on broken ones. The binary does not link it.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>

#include "knowledge/nccl_kb.h"

namespace trainready {
namespace {

// `info_failure` (why an entry that warns reads a format NCCL prints only at INFO) is review data
// for tools/nccl_kb_coverage.py; the reader accepts it and does not use it.
const std::set<std::string> kEntryKeys = {
    "id",       "match",        "level",       "kind",    "versions",    "in_file",
    "fixed_in", "what",         "severity",    "rank",    "causes",      "source",
    "doc",      "info_failure", "consequence", "not_via", "local_socket"};
const std::set<std::string> kCauseKeys = {"cause", "when", "fix", "confirm", "severity"};
const std::set<std::string> kWhenKeys = {
    "link_layer", "net",        "plugin",      "env",       "nccl",      "driver",
    "multi_node", "log_has",    "line_has",    "mnnvl",     "gdr",       "rccl",
    "framework",  "info_shown", "one_process", "container", "trail_call"};

// 1-based line of a node (0 when it has none).
int line_of(const YAML::Node& n) { return n.IsDefined() ? std::max(0, n.Mark().line + 1) : 0; }

struct Where {
  std::string text;
  bool compile = true;  // compile each regex now (else when first searched)
  std::string file;
  int line = 0;  // the entry's or the cause's
  [[noreturn]] void fail(const std::string& what) const {
    throw NcclKbError(text + ": " + what, file, line);
  }
  // The same place, at the line of `n` where it has one (the key that is wrong).
  Where at(const YAML::Node& n) const {
    Where r = *this;
    if (const int l = line_of(n)) r.line = l;
    return r;
  }
};

std::string scalar(const YAML::Node& n, const Where& w, const std::string& key, bool required) {
  const YAML::Node v = n[key];
  if (!v) {
    if (required) w.fail("missing '" + key + "'");
    return "";
  }
  if (!v.IsScalar()) w.at(v).fail("'" + key + "' must be text");
  std::string text = v.as<std::string>();
  // Only a single-quoted scalar doubles its apostrophes; in plain text '' stays two and reaches
  // the user ("didn''t"). yaml-cpp tags a plain scalar "?".
  if (v.Tag() == "?" && text.find("''") != std::string::npos)
    w.at(v).fail("'" + key + "' holds '' outside single quotes: write one apostrophe");
  return text;
}

NcclKbRegex regex(const std::string& text, const Where& w, const std::string& key) {
  NcclKbRegex r(text, w.text + ": '" + key + "'");
  try {
    if (w.compile) (void)r.re();
  } catch (const NcclKbError& e) {  // names the file, the entry and the key
    throw NcclKbError(e.what(), w.file, w.line);
  }
  return r;
}

std::optional<bool> boolean(const YAML::Node& n, const Where& w, const std::string& key) {
  const YAML::Node v = n[key];
  if (!v) return std::nullopt;
  const std::string s = v.IsScalar() ? v.as<std::string>() : "";
  if (s == "true") return true;
  if (s == "false") return false;
  w.at(v).fail("when-key '" + key + "' must be true or false");
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
  if (!n.IsMap()) w.at(n).fail("'when' must be a map");
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (!kWhenKeys.count(k)) w.at(kv.first).fail("unknown when-key '" + k + "'");
  }
  r.link_layer = scalar(n, w, "link_layer", false);
  if (!r.link_layer.empty() && r.link_layer != "InfiniBand" && r.link_layer != "Ethernet")
    w.at(n["link_layer"]).fail("when-key 'link_layer' must be InfiniBand or Ethernet");
  for (auto [k, field] :
       {std::pair{"net", &r.net}, std::pair{"plugin", &r.plugin}, std::pair{"log_has", &r.log_has},
        std::pair{"line_has", &r.line_has}, std::pair{"framework", &r.framework},
        std::pair{"trail_call", &r.trail_call}})
    if (n[k]) *field = regex(scalar(n, w, k, false), w.at(n[k]), k);
  r.nccl = scalar(n, w, "nccl", false);
  r.driver = scalar(n, w, "driver", false);
  check_versions(r.nccl, w.at(n["nccl"]), "nccl");
  check_versions(r.driver, w.at(n["driver"]), "driver");
  r.multi_node = boolean(n, w, "multi_node");
  r.mnnvl = boolean(n, w, "mnnvl");
  r.gdr = boolean(n, w, "gdr");
  r.rccl = boolean(n, w, "rccl");
  r.info_shown = boolean(n, w, "info_shown");
  r.one_process = boolean(n, w, "one_process");
  r.container = boolean(n, w, "container");
  if (const YAML::Node e = n["env"]) {
    if (!e.IsMap()) w.at(e).fail("when-key 'env' must be a map NCCL_X: regex (or unset)");
    for (const auto& kv : e) {
      NcclKbEnv x;
      x.name = kv.first.as<std::string>();
      if (!kv.second.IsScalar())
        w.at(kv.first).fail("env " + x.name + ": expected a regex or 'unset'");
      const std::string v = kv.second.as<std::string>();
      if (v != "unset") x.value = regex(v, w.at(kv.second), "env " + x.name);
      r.env.push_back(std::move(x));
    }
  }
  return r;
}

NcclKbEntry parse_entry(const YAML::Node& n, const std::string& file, const std::string& subsystem,
                        std::size_t index, bool compile) {
  Where w{file + ": entry " + std::to_string(index + 1), compile, file, line_of(n)};
  if (!n.IsMap()) w.fail("expected a map");
  if (n["id"] && n["id"].IsScalar()) w.text = file + ": " + n["id"].as<std::string>();
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (!kEntryKeys.count(k)) w.at(kv.first).fail("unknown key '" + k + "'");
  }
  NcclKbEntry e;
  e.file = file;
  e.subsystem = subsystem;
  e.id = scalar(n, w, "id", true);
  e.match = regex(scalar(n, w, "match", true), w.at(n["match"]), "match");
  e.literal = nccl_kb_required_literal(e.match.text);
  e.what = scalar(n, w, "what", true);
  e.source = scalar(n, w, "source", true);
  e.doc = scalar(n, w, "doc", false);
  (void)scalar(n, w, "info_failure", false);  // text, when given
  e.versions = scalar(n, w, "versions", false);
  check_versions(e.versions, w.at(n["versions"]), "versions");
  if (n["in_file"]) e.in_file = regex(scalar(n, w, "in_file", true), w.at(n["in_file"]), "in_file");
  if (n["not_via"]) e.not_via = regex(scalar(n, w, "not_via", true), w.at(n["not_via"]), "not_via");
  e.fixed_in = scalar(n, w, "fixed_in", false);
  if (!e.fixed_in.empty()) check_versions("<" + e.fixed_in, w.at(n["fixed_in"]), "fixed_in");
  const std::string level = scalar(n, w, "level", false);
  if (level == "WARN")
    e.level = NcclKbLevel::kWarn;
  else if (level == "INFO")
    e.level = NcclKbLevel::kInfo;
  else if (!level.empty())
    w.at(n["level"]).fail("level must be WARN or INFO");
  const std::string kind = scalar(n, w, "kind", false);
  if (kind == "trail")
    e.kind = NcclKbKind::kTrail;
  else if (kind == "passthrough")
    e.kind = NcclKbKind::kPassthrough;
  else if (!kind.empty())
    w.at(n["kind"]).fail("kind must be 'trail' or 'passthrough'");
  if (e.not_via && e.kind != NcclKbKind::kTrail)
    w.at(n["not_via"]).fail("not_via is for trail entries (kind: trail) only");
  const std::string sev = scalar(n, w, "severity", true);
  auto s = parse_severity(sev);
  if (!s) w.at(n["severity"]).fail("severity must be error, warning or info");
  e.severity = *s;
  if (n["rank"]) {
    try {
      e.rank = n["rank"].as<int>();
    } catch (const YAML::Exception&) {
      e.rank = -1;
    }
    if (e.rank < 0 || e.rank > 100) w.at(n["rank"]).fail("rank must be an integer 0..100");
  }
  for (auto [k, flag] :
       {std::pair{"consequence", &e.consequence}, std::pair{"local_socket", &e.local_socket}}) {
    if (!n[k]) continue;
    const std::string c = scalar(n, w, k, true);
    if (c != "true" && c != "false") w.at(n[k]).fail(std::string(k) + " must be true or false");
    *flag = c == "true";
  }
  const YAML::Node causes = n["causes"];
  if (!causes || !causes.IsSequence() || causes.size() == 0)
    w.at(causes).fail("causes must be a non-empty list");
  for (std::size_t j = 0; j < causes.size(); ++j) {
    const YAML::Node c = causes[j];
    Where cw{w.text + ": cause " + std::to_string(j + 1), w.compile, file, line_of(c)};
    if (!c.IsMap()) cw.fail("expected a map");
    for (const auto& kv : c) {
      const std::string k = kv.first.as<std::string>();
      if (!kCauseKeys.count(k)) cw.at(kv.first).fail("unknown key '" + k + "'");
    }
    NcclKbCause x;
    x.cause = scalar(c, cw, "cause", true);
    x.fix = scalar(c, cw, "fix", true);
    x.confirm = scalar(c, cw, "confirm", true);
    x.when = parse_when(c["when"], cw);
    if (c["severity"]) {
      if (x.when.empty()) cw.at(c["severity"]).fail("a cause's severity needs a when");
      x.severity = parse_severity(scalar(c, cw, "severity", true));
      if (!x.severity) cw.at(c["severity"]).fail("severity must be error, warning or info");
    }
    e.causes.push_back(std::move(x));
  }
  return e;
}

}  // namespace

NcclKnowledgeBase NcclKnowledgeBase::parse(
    const std::vector<std::pair<std::string, std::string>>& files, bool compile_regexes) {
  std::vector<NcclKbEntry> all;
  std::vector<NcclKbFile> prefixes;
  std::set<std::string> ids;
  for (const auto& [name, text] : files) {
    YAML::Node doc;
    try {
      doc = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw NcclKbError(name + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg,
                        name, e.mark.line + 1);
    }
    if (!doc.IsMap() || !doc["subsystem"] || !doc["subsystem"].IsScalar() || !doc["entries"] ||
        !doc["entries"].IsSequence())
      throw NcclKbError(name + ": expected a map with 'subsystem' (text) and 'entries' (list)",
                        name, 1);
    const std::string subsystem = doc["subsystem"].as<std::string>();
    try {
      const YAML::Node entries = doc["entries"];
      for (std::size_t i = 0; i < entries.size(); ++i) {
        NcclKbEntry e = parse_entry(entries[i], name, subsystem, i, compile_regexes);
        if (!ids.insert(e.id).second)
          throw NcclKbError(name + ": " + e.id + ": duplicate id", name, line_of(entries[i]));
        all.push_back(std::move(e));
      }
      if (const YAML::Node f = doc["files"]) {
        if (!f.IsMap())
          throw NcclKbError(name + ": 'files' must be a map prefix: subsystem", name, line_of(f));
        for (const auto& kv : f)
          prefixes.push_back({kv.first.as<std::string>(), kv.second.as<std::string>()});
      }
    } catch (const YAML::Exception& e) {
      throw NcclKbError(name + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg, name,
                        e.mark.line + 1);
    }
  }
  return NcclKnowledgeBase(std::move(all), std::move(prefixes));
}

}  // namespace trainready
