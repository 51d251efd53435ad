#include "cli/report_options.h"

#include "cli/commands.h"
#include "cli/output.h"
#include "core/input_error.h"
#include "report/json_reporter.h"
#include "report/text_reporter.h"
#include "rules/registry.h"

namespace trainready {

void ReportOptions::add_to(CLI::App* c) {
  if (sarif) {
    c->add_option("--format", format, "Output format: text, json or sarif (SARIF 2.1.0)")
        ->check(CLI::IsMember({"text", "json", "sarif"}));
  } else {
    c->add_option("--format", format, "Output format: text or json")
        ->check(CLI::IsMember({"text", "json"}));
  }
  c->add_flag("--json", json, "Same as --format json");
  c->add_option("--fail-on", fail_on, "Exit 1 when a finding is at or above: error, warning, info")
      ->check(CLI::IsMember({"error", "warning", "info"}));
  c->add_option("--color", color, "auto (only on a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  c->add_option("-o,--output", output,
                "Write the report to this file (atomically) instead of stdout");
  c->add_option("--rule", only, "Run only this rule (repeatable)");
  c->add_option("--skip", skip, "Do not run this rule (repeatable)");
}

Severity ReportOptions::fail_on_severity() const {
  auto s = parse_severity(fail_on);
  if (!s) throw InputError("--fail-on", 0, "expected error, warning or info");
  return *s;
}

RuleSelection ReportOptions::selection() const {
  for (const auto& id : only) {
    if (!find_rule(id))
      throw InputError("--rule", 0, "unknown rule id '" + id + "' (see `trainready rules`)");
  }
  for (const auto& id : skip) {
    if (!find_rule(id))
      throw InputError("--skip", 0, "unknown rule id '" + id + "' (see `trainready rules`)");
  }
  RuleSelection sel;
  sel.only.insert(only.begin(), only.end());
  sel.skip.insert(skip.begin(), skip.end());
  return sel;
}

int ReportOptions::judge_and_emit(std::vector<NodeFacts> nodes, const Catalog& catalog,
                                  std::shared_ptr<const NcclRunFacts> log,
                                  std::shared_ptr<const NcclTestsFacts> tests,
                                  const RunOptions& options, const std::string& command) const {
  const Severity severity = fail_on_severity();
  RunInputs run;
  run.nccl_log = log.get();
  run.nccl_tests = tests.get();
  run.options = options;
  Evaluation ev = evaluate_rules(nodes, catalog, selection(), &run);
  DoctorReport report = make_doctor_report(std::move(nodes), std::move(ev), catalog.origin(),
                                           tool_version(), severity, command);
  report.nccl_log = std::move(log);
  if (tests) report.busbw_expected = expected_busbw(*tests, catalog, options);
  report.nccl_tests = std::move(tests);
  return emit_report(report);
}

int ReportOptions::emit_report(const DoctorReport& report) const {
  const std::string f = json ? "json" : format;
  if (f != "text" && f != "json") throw InputError("--format", 0, "expected text or json");
  const bool use_color =
      color == "always" || (color == "auto" && output.empty() && stdout_is_tty());
  emit(f == "json" ? render_json(report) : render_text(report, use_color), output);
  return report.exit_code;
}

}  // namespace trainready
