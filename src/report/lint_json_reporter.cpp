#include "report/lint_json_reporter.h"

#include "report/doctor_report.h"
#include "report/json_reporter.h"

namespace trainready {

nlohmann::json lint_report_json(const LintReport& r) {
  using nlohmann::json;
  json j;
  j["schema_version"] = kReportSchemaVersion;
  j["tool"] = {{"name", "trainready"}, {"version", r.tool_version}};
  j["command"] = "lint";
  j["files"] = r.files;
  j["resources"] = r.resources;
  j["verdict"] = {{"status", r.status}, {"summary", r.verdict}};
  j["counts"] = counts_json(r.evaluation);
  j["counts"]["suppressed"] = r.suppressed.size();
  j["fail_on"] = std::string(to_string(r.fail_on));
  j["exit_code"] = r.exit_code;
  j["findings"] = findings_json(r.evaluation.findings);
  json suppressed = json::array();
  for (const auto& s : r.suppressed) {
    json x = finding_json(s.finding);
    x["suppression"] = {{"kind", s.kind},
                        {"justification", s.justification},
                        {"source", s.where.source},
                        {"line", s.where.line > 0 ? json(s.where.line) : json(nullptr)}};
    suppressed.push_back(std::move(x));
  }
  j["suppressed"] = suppressed;
  j["suppression_warnings"] = r.warnings;
  json notes = json::array();
  for (const auto& n : r.input_notes) notes.push_back({{"rule", ""}, {"note", n}});
  for (const auto& n : r.evaluation.notes)
    notes.push_back({{"rule", n.rule_id}, {"note", n.reason}});
  j["notes"] = notes;
  json skipped = json::array();
  for (const auto& s : r.evaluation.skipped)
    skipped.push_back({{"rule", s.rule_id}, {"reason", s.reason}});
  j["skipped"] = skipped;
  return j;
}

std::string render_lint_json(const LintReport& r) { return lint_report_json(r).dump(2) + "\n"; }

}  // namespace trainready
