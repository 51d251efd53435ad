#include "report/doctor_report.h"

namespace trainready {
namespace {

std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

std::string verdict_status_name(VerdictStatus s, const std::string& command) {
  if (command != "doctor") {
    switch (s) {
      case VerdictStatus::kReady:
        return "ok";
      case VerdictStatus::kReadyWithWarnings:
        return "ok_with_warnings";
      case VerdictStatus::kIncomplete:
        return "incomplete";
      case VerdictStatus::kNotReady:
        return "problems";
    }
  }
  switch (s) {
    case VerdictStatus::kReady:
      return "ready";
    case VerdictStatus::kReadyWithWarnings:
      return "ready_with_warnings";
    case VerdictStatus::kIncomplete:
      return "incomplete";
    case VerdictStatus::kNotReady:
      return "not_ready";
  }
  return "incomplete";
}

Verdict compute_verdict(const Evaluation& ev, std::size_t node_count, const std::string& command) {
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t infos = 0;
  for (const Finding& f : ev.findings) {
    if (f.severity == Severity::kError)
      ++errors;
    else if (f.severity == Severity::kWarning)
      ++warnings;
    else
      ++infos;
  }
  const std::string scope = node_count > 1 ? plural(node_count, "node") : "this node";
  const std::string counts = plural(errors, "error") + ", " + plural(warnings, "warning") + ", " +
                             plural(infos, "note") + ", " + plural(ev.skipped.size(), "check") +
                             " skipped";
  Verdict v;
  if (command != "doctor") {
    const std::string subject = command == "nccl" ? "the NCCL log" : "the nccl-tests result";
    if (errors > 0) {
      v.status = VerdictStatus::kNotReady;
      v.line = "PROBLEMS: " + subject + " shows what stops or slows this run (" + counts + ")";
    } else if (!ev.skipped.empty()) {
      v.status = VerdictStatus::kIncomplete;
      v.line = "INCOMPLETE: no errors in " + subject + ", but " +
               plural(ev.skipped.size(), "check") + " could not run (" + counts + ")";
    } else if (warnings > 0) {
      v.status = VerdictStatus::kReadyWithWarnings;
      v.line = "OK WITH WARNINGS: " + subject + " shows a working run that is not at full speed (" +
               counts + ")";
    } else {
      v.status = VerdictStatus::kReady;
      v.line = "OK: " + subject + " shows no problem (" + counts + ")";
    }
    return v;
  }
  if (errors > 0) {
    v.status = VerdictStatus::kNotReady;
    v.line = "NOT READY: " + scope + " cannot run multi-node training as is (" + counts + ")";
  } else if (!ev.skipped.empty()) {
    v.status = VerdictStatus::kIncomplete;
    v.line = "INCOMPLETE: no errors in what could be checked on " + scope + ", but " +
             plural(ev.skipped.size(), "check") + " could not run (" + counts + ")";
  } else if (warnings > 0) {
    v.status = VerdictStatus::kReadyWithWarnings;
    v.line = "READY WITH WARNINGS: " + scope +
             " can take part in multi-node training; fix the warnings to get "
             "full speed (" +
             counts + ")";
  } else {
    v.status = VerdictStatus::kReady;
    v.line = "READY: " + scope + " can take part in multi-node training (" + counts + ")";
  }
  return v;
}

int exit_code_for(const Evaluation& ev, Severity fail_on) {
  for (const Finding& f : ev.findings) {
    if (f.severity >= fail_on) return 1;
  }
  return 0;
}

DoctorReport make_doctor_report(std::vector<NodeFacts> nodes, Evaluation ev,
                                std::string catalog_origin, std::string tool_version,
                                Severity fail_on, const std::string& command) {
  DoctorReport r;
  r.command = command;
  r.verdict = compute_verdict(ev, nodes.size(), command);
  r.exit_code = exit_code_for(ev, fail_on);
  r.nodes = std::move(nodes);
  r.evaluation = std::move(ev);
  r.catalog_origin = std::move(catalog_origin);
  r.tool_version = std::move(tool_version);
  r.fail_on = fail_on;
  return r;
}

}  // namespace trainready
