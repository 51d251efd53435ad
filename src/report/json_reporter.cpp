#include "report/json_reporter.h"

#include "facts/facts_json.h"
#include "rules/registry.h"

namespace trainready {

nlohmann::json doctor_report_json(const DoctorReport& r) {
  using nlohmann::json;
  json j;
  j["schema_version"] = kReportSchemaVersion;
  j["tool"] = {{"name", "trainready"}, {"version", r.tool_version}};
  j["command"] = "doctor";
  j["catalog"] = r.catalog_origin;
  std::size_t counts[3] = {0, 0, 0};
  for (const auto& f : r.evaluation.findings) ++counts[static_cast<int>(f.severity)];
  j["verdict"] = {{"status", verdict_status_name(r.verdict.status)}, {"summary", r.verdict.line}};
  j["counts"] = {{"error", counts[2]},
                 {"warning", counts[1]},
                 {"info", counts[0]},
                 {"skipped", r.evaluation.skipped.size()},
                 {"rule_evaluations", r.evaluation.evaluations}};
  j["fail_on"] = std::string(to_string(r.fail_on));
  j["exit_code"] = r.exit_code;
  json findings = json::array();
  for (const auto& f : r.evaluation.findings) {
    json ev = json::array();
    for (const auto& e : f.evidence) {
      json x{{"text", e.text}, {"source", e.where.source}};
      x["line"] = e.where.line > 0 ? json(e.where.line) : json(nullptr);
      ev.push_back(std::move(x));
    }
    const Rule* rule = find_rule(f.rule_id);
    findings.push_back({{"rule", f.rule_id},
                        {"severity", std::string(to_string(f.severity))},
                        {"title", rule ? std::string(rule->title()) : std::string()},
                        {"node", f.node},
                        {"message", f.message},
                        {"evidence", ev},
                        {"cause", f.cause},
                        {"fix", f.fix},
                        {"doc", "docs/rules/" + f.rule_id + ".md"}});
  }
  j["findings"] = findings;
  json skipped = json::array();
  for (const auto& s : r.evaluation.skipped)
    skipped.push_back({{"rule", s.rule_id}, {"node", s.node}, {"reason", s.reason}});
  j["skipped"] = skipped;
  json notes = json::array();
  for (const auto& s : r.evaluation.notes)
    notes.push_back({{"rule", s.rule_id}, {"node", s.node}, {"note", s.reason}});
  j["notes"] = notes;
  json nodes = json::array();
  for (const auto& n : r.nodes) nodes.push_back(to_json(n));
  j["nodes"] = nodes;
  return j;
}

std::string render_json(const DoctorReport& r) { return doctor_report_json(r).dump(2) + "\n"; }

}  // namespace trainready
