#include "report/sarif/sarif_reporter.h"

#include <map>
#include <set>

#include "engine/folded_runs.h"
#include "engine/shared_findings.h"
#include "report/rule_doc.h"
#include "rules/registry.h"

namespace trainready {
namespace {

const char* sarif_level(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "note";
  }
  return "none";
}

// SARIF wants URIs: relative paths as they are ("./" dropped), with '\' as '/'.
std::string artifact_uri(std::string path) {
  for (char& c : path) {
    if (c == '\\') c = '/';
  }
  while (path.rfind("./", 0) == 0) path.erase(0, 2);
  std::string out = path.rfind('/', 0) == 0 ? "file://" : "";
  for (unsigned char c : path) {
    if (c == ' ' || c == '%' || c == '#' || c == '?' || c < 0x20) {
      static const char* const hex = "0123456789ABCDEF";
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// Where a finding is: its own location (a template's file:line), else the first evidence that
// names a file and a line (a NCCL log line, a sysfs file of a snapshot).
const Provenance* location_of(const Finding& f) {
  if (!f.location.source.empty()) return &f.location;
  for (const Evidence& e : f.evidence) {
    if (!e.where.source.empty() && e.where.line > 0) return &e.where;
  }
  return nullptr;
}

}  // namespace

nlohmann::json report_sarif(const Report& r) {
  using nlohmann::json;
  std::set<std::string> ran;
  for (const RuleRun& run : r.evaluation.runs) ran.insert(run.rule_id);
  if (r.evaluation.folded_runs && r.evaluation.folded_runs->nodes > 0)
    for (const FoldedNodeRuns::Rule& rule : r.evaluation.folded_runs->rules) ran.insert(rule.id);
  for (const Finding& f : r.evaluation.findings) ran.insert(f.rule_id);
  if (r.evaluation.shared_findings)
    for (const SharedFindings::Entry& e : r.evaluation.shared_findings->entries)
      ran.insert(e.finding->rule_id);
  json rules = json::array();
  std::map<std::string, int> index;
  for (const auto& rule : all_rules()) {
    const std::string id(rule->id());
    if (ran.count(id) == 0) continue;
    index[id] = static_cast<int>(rules.size());
    rules.push_back({{"id", id},
                     {"name", id},
                     {"shortDescription", {{"text", std::string(rule->title())}}},
                     {"helpUri", rule_doc_url(id)},
                     {"defaultConfiguration", {{"level", sarif_level(rule->severity())}}}});
  }
  json results = json::array();
  for_each_finding(r.evaluation, [&](const Finding& f) {
    std::string full = f.message;
    if (!f.cause.empty()) full += " " + f.cause;
    if (!f.fix.empty()) full += " Fix: " + f.fix;
    json res{
        {"ruleId", f.rule_id}, {"level", sarif_level(f.severity)}, {"message", {{"text", full}}}};
    if (auto it = index.find(f.rule_id); it != index.end()) res["ruleIndex"] = it->second;
    if (const Provenance* where = location_of(f)) {
      json phys{{"artifactLocation", {{"uri", artifact_uri(where->source)}}}};
      if (where->line > 0) phys["region"] = {{"startLine", where->line}};
      json loc{{"physicalLocation", phys}};
      if (!f.resource.empty())
        loc["logicalLocations"] = json::array({{{"name", f.resource}, {"kind", "resource"}}});
      if (!f.node.empty())
        loc["logicalLocations"] = json::array({{{"name", f.node}, {"kind", "node"}}});
      res["locations"] = json::array({loc});
    } else if (!f.node.empty()) {
      res["locations"] = json::array(
          {{{"logicalLocations", json::array({{{"name", f.node}, {"kind", "node"}}})}}});
    }
    // Two nodes with the same rule firing are two results, not one.
    if (!f.node.empty()) res["partialFingerprints"] = {{"trainreadyNode/v1", f.node}};
    results.push_back(std::move(res));
  });
  json invocations = json::array();
  if (r.lint) {
    // SARIF 2.1.0 §3.20: an invocation that could not read an input is not successful, and
    // says which (toolExecutionNotifications, §3.20.21; notification, §3.58).
    json notes = json::array();
    for (const auto& e : r.lint->input_errors) {
      json phys{{"artifactLocation", {{"uri", artifact_uri(e.file)}}}};
      if (e.line > 0) phys["region"] = {{"startLine", e.line}};
      notes.push_back({{"level", "error"},
                       {"message", {{"text", e.message}}},
                       {"locations", json::array({{{"physicalLocation", phys}}})}});
    }
    json inv{{"executionSuccessful", r.lint->input_errors.empty()}};
    if (!notes.empty()) inv["toolExecutionNotifications"] = notes;
    invocations.push_back(std::move(inv));
  }
  json run{{"tool",
            {{"driver",
              {{"name", "trainready"},
               {"version", r.tool_version},
               {"informationUri", "https://github.com/trainready/trainready"},
               {"rules", rules}}}}},
           {"results", results},
           {"columnKind", "unicodeCodePoints"},
           {"properties",
            {{"command", r.command},
             {"suppressed_count", r.lint ? r.lint->suppressed.size() : 0},
             {"verdict", r.verdict.line}}}};
  if (!invocations.empty()) run["invocations"] = invocations;
  return json{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs", json::array({run})}};
}

std::string render_sarif(const Report& r) {
  return report_sarif(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace trainready
