#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <utility>

#include "engine/shared_findings.h"
#include "facts/node_digest.h"
#include "report/node_count.h"
#include "report/report.h"

namespace trainready {
namespace {

std::string plural(std::size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// How each command names what it judged, and what each outcome means for it.
struct Wording {
  std::string subject;
  const char* problems;
  const char* warnings;
  const char* ok;
};

Wording wording_of(const Report& r) {
  const std::string& c = r.command;
  if (c == "nccl")
    return {r.nccl_log || !r.progress ? "the NCCL log" : "NCCL's own telemetry",
            "shows what stops or slows this run", "shows a working run that is not at full speed",
            "shows no problem"};
  if (c == "nccl-tests" || c.rfind("bench ", 0) == 0) {
    if (c == "bench storage")
      return {"the storage path", "cannot feed the accelerators asked for",
              "feeds the accelerators asked for, with caveats", "feeds the accelerators asked for"};
    std::string subject =
        c == "nccl-tests" ? "the nccl-tests result" : "the " + c.substr(6) + " benchmark";
    return {subject, "shows what stops or slows this run",
            "shows a working run that is not at full speed", "shows no problem"};
  }
  if (c == "stage")
    return {"the staged copy", "is not complete or not as the source", "is complete, with caveats",
            "is complete and as the source"};
  if (c == "watch")
    return {"the watched job", "stopped making progress", "spent time waiting on a path",
            "waited on no path the counters show"};
  if (c == "lint")
    return {"the deployment", "has what breaks multi-node training", "can train, not at full speed",
            "has none of the traps checked"};
  if (c == "plan check")
    return {"the cluster", "misses the plan", "meets the plan, with caveats", "meets the plan"};
  if (c == "plan")
    return {"the plan", "cannot run this job as asked", "runs this job, with caveats",
            "runs this job"};
  return {"this node", "", "", ""};
}

std::string counts_of(const Evaluation& ev) {
  std::size_t n[3] = {0, 0, 0};
  for_each_finding(ev, [&](const Finding& f) { ++n[static_cast<int>(f.severity)]; });
  const std::size_t partly = partly_evaluated(ev);
  return plural(n[2], "error") + ", " + plural(n[1], "warning") + ", " + plural(n[0], "note") +
         ", " + plural(skip_count(ev), "check") + " skipped" +
         (partly ? ", " + plural(partly, "check") + " skipped in part" : "");
}

// Checks that could not run, whole or in part: a rule that judged three ports of eight did not
// pass the other five.
std::size_t not_run(const Evaluation& ev) { return skip_count(ev) + partly_evaluated(ev); }

VerdictStatus status_of(const Evaluation& ev) {
  bool errors = false;
  bool warnings = false;
  for_each_finding(ev, [&](const Finding& f) {
    errors = errors || f.severity == Severity::kError;
    warnings = warnings || f.severity == Severity::kWarning;
  });
  if (errors) return VerdictStatus::kNotReady;
  if (not_run(ev) > 0) return VerdictStatus::kIncomplete;
  if (warnings) return VerdictStatus::kReadyWithWarnings;
  return VerdictStatus::kReady;
}

bool judges_nodes(const std::string& command) { return command == "doctor" || command == "fleet"; }

std::string node_line(VerdictStatus s, const Report& r, const std::string& counts) {
  // A fleet counts its ranks: a rank that sent no facts is still a node of the cluster.
  const std::size_t n = r.fleet ? static_cast<std::size_t>(r.fleet->size) : r.nodes.size();
  const std::string scope = r.fleet && n > 1 ? "the cluster of " + plural(n, "node")
                            : n > 1          ? plural(n, "node")
                                             : "this node";
  switch (s) {
    case VerdictStatus::kNotReady:
      return "NOT READY: " + scope + " cannot run multi-node training as is (" + counts + ")";
    case VerdictStatus::kIncomplete:
      return "INCOMPLETE: no errors in what could be checked on " + scope + ", but " +
             plural(not_run(r.evaluation), "check") + " could not run" +
             (partly_evaluated(r.evaluation) ? " in full" : "") + " (" + counts + ")";
    case VerdictStatus::kReadyWithWarnings:
      return "READY WITH WARNINGS: " + scope +
             " can take part in multi-node training; fix the warnings to get full speed (" +
             counts + ")";
    case VerdictStatus::kReady:
      break;
  }
  return "READY: " + scope + " can take part in multi-node training (" + counts + ")";
}

std::string run_line(VerdictStatus s, const Report& r, const std::string& counts) {
  const Wording w = wording_of(r);
  std::string detail = counts;
  if (r.lint) {
    detail += " in " + plural(r.lint->resources, "resource") + " from " +
              plural(r.lint->files.size(), "file");
    if (!r.lint->suppressed.empty())
      detail += "; " + std::to_string(r.lint->suppressed.size()) + " suppressed";
  }
  switch (s) {
    case VerdictStatus::kNotReady:
      return "PROBLEMS: " + w.subject + " " + w.problems + " (" + detail + ")";
    case VerdictStatus::kIncomplete:
      return "INCOMPLETE: no errors in " + w.subject + ", but " +
             plural(not_run(r.evaluation), "check") + " could not run" +
             (partly_evaluated(r.evaluation) ? " in full" : "") + " (" + detail + ")";
    case VerdictStatus::kReadyWithWarnings:
      return "OK WITH WARNINGS: " + w.subject + " " + w.warnings + " (" + detail + ")";
    case VerdictStatus::kReady:
      break;
  }
  return "OK: " + w.subject + " " + w.ok + " (" + detail + ")";
}

}  // namespace

std::size_t partly_evaluated(const Evaluation& ev) {
  std::set<std::pair<std::string, std::string>> runs;
  for_each_note(ev, [&](const RuleSkip& n) { runs.emplace(n.rule_id, n.node); });
  return runs.size();
}

std::string verdict_status_name(VerdictStatus s, const std::string& command) {
  const bool node = judges_nodes(command);
  switch (s) {
    case VerdictStatus::kReady:
      return node ? "ready" : "ok";
    case VerdictStatus::kReadyWithWarnings:
      return node ? "ready_with_warnings" : "ok_with_warnings";
    case VerdictStatus::kIncomplete:
      return "incomplete";
    case VerdictStatus::kNotReady:
      return node ? "not_ready" : "problems";
  }
  return "incomplete";
}

int exit_code_for(const Evaluation& ev, Severity fail_on) {
  int code = 0;
  for_each_finding(ev, [&](const Finding& f) { code = f.severity >= fail_on ? 1 : code; });
  return code;
}

void finish_report(Report& r, Severity fail_on) {
  r.fail_on = fail_on;
  r.exit_code = exit_code_for(r.evaluation, fail_on);
  const std::string counts = counts_of(r.evaluation);
  r.verdict.status = status_of(r.evaluation);
  r.verdict.line = judges_nodes(r.command) ? node_line(r.verdict.status, r, counts)
                                           : run_line(r.verdict.status, r, counts);
}

std::size_t judged_node_count(const Report& r) {
  return std::max(r.nodes.size(), r.cluster_nodes ? r.cluster_nodes->size() : std::size_t{0});
}

}  // namespace trainready
