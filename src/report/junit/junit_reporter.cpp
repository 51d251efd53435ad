#include "report/junit/junit_reporter.h"

#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/folded_runs.h"
#include "engine/shared_findings.h"
#include "report/markup_escape.h"
#include "report/rule_doc.h"
#include "rules/registry.h"

namespace trainready {
namespace {

struct CaseOutcome {
  enum class Kind { kPassed, kFailed, kSkipped } kind = Kind::kPassed;
  std::string message;  // failure / skipped message attribute
  std::string type;     // failure type: the most severe finding's severity
  std::string body;     // failure text, or the findings below --fail-on (system-out)
};

std::string finding_text(const Finding& f) {
  std::string t = "[" + std::string(to_string(f.severity)) + "] " + f.message + "\n";
  if (!f.resource.empty() || !f.location.source.empty())
    t += "location: " + f.resource + (f.resource.empty() ? "" : " ") + f.location.str() + "\n";
  for (const Evidence& e : f.evidence)
    t += "evidence: " + e.text + (e.where.source.empty() ? "" : " (" + e.where.str() + ")") + "\n";
  if (!f.cause.empty()) t += "cause: " + f.cause + "\n";
  if (!f.fix.empty()) t += "fix: " + f.fix + "\n";
  t += "doc: " + rule_doc_url(f.rule_id) + "\n";
  return t;
}

bool same_run(const Finding& f, const RuleRun& run) {
  return f.rule_id == run.rule_id && f.node == run.node;
}

// The findings of one run (rule and node), as finding_text() writes them, and the first of the
// most severe: gathered in one pass over the findings, so that a run does not look through all of
// them.
struct RunFindings {
  std::string body;
  Severity worst = Severity::kInfo;
  std::string worst_message;
  bool any = false;
};

std::string run_key(const std::string& rule_id, const std::string& node) {
  return rule_id + '\n' + node;
}

std::unordered_map<std::string, RunFindings> findings_by_run(const Evaluation& ev) {
  std::unordered_map<std::string, RunFindings> out;
  for_each_finding(ev, [&](const Finding& f) {
    RunFindings& x = out[run_key(f.rule_id, f.node)];
    x.body += finding_text(f);
    if (!x.any || f.severity > x.worst) {
      x.worst = f.severity;
      x.worst_message = f.message;
    }
    x.any = true;
  });
  return out;
}

// A run's outcome in CI terms. A failure is what fails the command (a finding at or above
// --fail-on), so a red test case and exit code 1 say the same thing; findings below the threshold
// pass with their text as system-out. A finding the engine folded into another one (subsumes)
// has no text of its own left: the run's detail stands for it.
CaseOutcome outcome_of(const RuleRun& run, const Report& r,
                       const std::unordered_map<std::string, RunFindings>& by_run) {
  CaseOutcome o;
  if (run.outcome == RuleRun::Outcome::kSkipped) {
    o.kind = CaseOutcome::Kind::kSkipped;
    o.message = run.detail;
    return o;
  }
  if (run.outcome == RuleRun::Outcome::kNotApplicable) {
    o.body = "not applicable: " + run.detail;
    return o;
  }
  if (run.outcome == RuleRun::Outcome::kPassed) return o;
  const auto found = by_run.find(run_key(run.rule_id, run.node));
  const RunFindings* worst = found == by_run.end() ? nullptr : &found->second;
  if (worst) o.body += worst->body;
  if (!worst && r.lint) {
    // Every finding of this run was suppressed: accepted on purpose, not a failure.
    for (const SuppressedFinding& s : r.lint->suppressed) {
      if (!same_run(s.finding, run)) continue;
      o.kind = CaseOutcome::Kind::kSkipped;
      o.message = "suppressed (" + s.kind + "): " + s.justification;
      return o;
    }
  }
  if (!worst) {
    const Severity s = run.worst;  // as the rule gave it, before another finding took it in
    o.kind = s >= r.fail_on ? CaseOutcome::Kind::kFailed : CaseOutcome::Kind::kPassed;
    o.type = std::string(to_string(s));
    o.message = run.detail.substr(0, run.detail.find('\n'));
    o.body = run.detail + "\n(reported as part of another rule's finding)\n";
    return o;
  }
  if (worst->worst < r.fail_on) return o;  // body goes to system-out
  o.kind = CaseOutcome::Kind::kFailed;
  o.type = std::string(to_string(worst->worst));
  o.message = worst->worst_message;
  return o;
}

std::string attr(std::string_view s) { return "\"" + escape_markup(s) + "\""; }

std::string classname_of(const RuleRun& run) {
  if (!run.node.empty()) return run.node;
  const Rule* rule = find_rule(run.rule_id);
  return rule ? scope_name(rule->scope()) : "trainready";
}

}  // namespace

std::string render_junit(const Report& r) {
  std::vector<CaseOutcome> outcomes;
  outcomes.reserve(run_count(r.evaluation));
  std::size_t failures = 0;
  std::size_t skipped = 0;
  const std::unordered_map<std::string, RunFindings> by_run = findings_by_run(r.evaluation);
  for_each_run(r.evaluation, [&](const RuleRun& run) {
    outcomes.push_back(outcome_of(run, r, by_run));
    failures += outcomes.back().kind == CaseOutcome::Kind::kFailed;
    skipped += outcomes.back().kind == CaseOutcome::Kind::kSkipped;
  });
  const std::string suite = "trainready " + r.command;
  const std::string counts = " tests=\"" + std::to_string(run_count(r.evaluation)) +
                             "\" failures=\"" + std::to_string(failures) +
                             "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\"";
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += "<testsuites name=" + attr(suite) + counts + ">\n";
  x += "  <testsuite name=" + attr(suite) + counts + ">\n";
  // Properties carry what a CI page shows beside the cases: the verdict and the exit code.
  x += "    <properties>\n";
  const auto property = [&x](std::string_view name, std::string_view value) {
    x += "      <property name=" + attr(name) + " value=" + attr(value) + "/>\n";
  };
  property("verdict", r.verdict.line);
  property("exit_code", std::to_string(r.exit_code));
  property("fail_on", to_string(r.fail_on));
  if (!r.tool_version.empty()) property("tool_version", r.tool_version);
  x += "    </properties>\n";
  std::size_t i = 0;
  for_each_run(r.evaluation, [&](const RuleRun& run) {
    const CaseOutcome& o = outcomes[i++];
    const std::string name = run.rule_id + (run.node.empty() ? "" : " on " + run.node);
    x += "    <testcase classname=" + attr(classname_of(run)) + " name=" + attr(name);
    switch (o.kind) {
      case CaseOutcome::Kind::kPassed:
        if (o.body.empty()) {
          x += "/>\n";
        } else {
          x += ">\n      <system-out>" + escape_markup(o.body) + "</system-out>\n    </testcase>\n";
        }
        break;
      case CaseOutcome::Kind::kSkipped:
        x += ">\n      <skipped message=" + attr(o.message) + "/>\n    </testcase>\n";
        break;
      case CaseOutcome::Kind::kFailed:
        x += ">\n      <failure message=" + attr(o.message) + " type=" + attr(o.type) + ">" +
             escape_markup(o.body) + "</failure>\n    </testcase>\n";
        break;
    }
  });
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

}  // namespace trainready
