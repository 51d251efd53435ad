#include "report/lint_report.h"

#include "report/doctor_report.h"

namespace trainready {

std::string rule_doc_url(const std::string& rule_id) {
  return "https://github.com/trainready/trainready/blob/main/docs/rules/" + rule_id + ".md";
}

LintReport make_lint_report(const DeploymentFacts& facts, Evaluation ev,
                            SuppressionOutcome suppressions, std::string tool_version,
                            Severity fail_on) {
  LintReport r;
  r.tool_version = std::move(tool_version);
  r.files = facts.files;
  r.resources = facts.resources.size();
  r.input_notes = facts.notes;
  r.suppressed = std::move(suppressions.suppressed);
  r.warnings = std::move(suppressions.warnings);
  r.fail_on = fail_on;
  int errors = 0;
  int warnings = 0;
  int infos = 0;
  for (const auto& f : ev.findings) {
    if (f.severity == Severity::kError) ++errors;
    if (f.severity == Severity::kWarning) ++warnings;
    if (f.severity == Severity::kInfo) ++infos;
  }
  r.evaluation = std::move(ev);
  r.exit_code = exit_code_for(r.evaluation, fail_on);
  r.status = errors > 0 ? "problems" : (warnings > 0 ? "warnings" : "clean");
  auto plural = [](int n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  r.verdict = (errors > 0 ? "NOT OK: " : (warnings > 0 ? "OK WITH WARNINGS: " : "OK: ")) +
              plural(errors, "error") + ", " + plural(warnings, "warning") + ", " +
              plural(infos, "note") + " in " + plural(static_cast<int>(r.resources), "resource") +
              " from " + plural(static_cast<int>(r.files.size()), "file");
  if (!r.suppressed.empty())
    r.verdict += "; " + std::to_string(r.suppressed.size()) + " suppressed";
  return r;
}

}  // namespace trainready
