// The health rules. Each turns the verdicts of health_judge.cpp for its id into findings;
// the fix names the repair action and, where Azure has one, the GHR impact category.
#include "rules/health/health_rules.h"

#include <algorithm>

#include "rules/health/health_judge.h"

namespace trainready {
namespace {

class VerdictRule final : public HealthRule {
 public:
  VerdictRule(std::string_view id, std::string_view title) : id_(id), title_(title) {}
  std::string_view id() const override { return id_; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return title_; }

  RuleOutcome judge(const HealthFacts& facts) const override {
    RuleOutcome out;
    for (HealthVerdict& v : health_verdicts(facts, id_)) {
      Finding f = finding(std::move(v.message));
      f.severity = v.severity;
      f.evidence = std::move(v.evidence);
      f.cause = std::move(v.cause);
      f.fix = "Action: " + std::string(to_string(v.action)) +
              (v.ghr_category.empty() ? "" : " (GHR " + v.ghr_category + ")") + ". " + v.fix;
      out.findings.push_back(std::move(f));
    }
    return out;
  }

 private:
  std::string_view id_;
  std::string_view title_;
};

}  // namespace

const std::vector<std::unique_ptr<HealthRule>>& health_rules() {
  static const std::vector<std::unique_ptr<HealthRule>> rules = [] {
    std::vector<std::unique_ptr<HealthRule>> r;
    r.push_back(std::make_unique<VerdictRule>(
        "health-gpu-ecc", "GPU ECC or remapped-row counts above AzNHC's limits"));
    r.push_back(std::make_unique<VerdictRule>(
        "health-gpu-nvlink-errors", "NVLink CRC or recovery errors climb (DCGM's limits)"));
    r.push_back(std::make_unique<VerdictRule>(
        "health-gpu-pcie-replay", "GPU PCIe replays above 8 per minute (DCGM's limit)"));
    r.push_back(std::make_unique<VerdictRule>(
        "health-gpu-row-remap",
        "A GPU row remap pending a reset, failed, or still pending after a reboot"));
    r.push_back(std::make_unique<VerdictRule>(
        "health-gpu-throttle", "GPU clocks slowed by hardware, persisting across samples"));
    r.push_back(std::make_unique<VerdictRule>("health-gpu-xid",
                                              "A GPU Xid in this boot, or again after a reboot"));
    r.push_back(std::make_unique<VerdictRule>(
        "health-ib-counter-errors", "InfiniBand error counters climb faster than their limits"));
    r.push_back(std::make_unique<VerdictRule>(
        "health-ib-port-down", "An InfiniBand port down, dropped or recovered over time"));
    r.push_back(std::make_unique<VerdictRule>(
        "health-ib-port-flapping", "An InfiniBand port keeps going down and coming back"));
    r.push_back(std::make_unique<VerdictRule>(
        "health-probe-hung", "A probe (nvidia-smi) did not return within its deadline"));
    return r;
  }();
  return rules;
}

const HealthRule* find_health_rule(std::string_view id) {
  for (const auto& r : health_rules())
    if (r->id() == id) return r.get();
  return nullptr;
}

Evaluation evaluate_health(const HealthFacts& f, const RuleSelection& selection) {
  Evaluation ev;
  for (const auto& rule : health_rules()) {
    const std::string id(rule->id());
    if (!selection.wants(id)) continue;
    RuleOutcome o = rule->judge(f);
    ++ev.evaluations;
    RuleRun run;
    run.rule_id = id;
    if (o.findings.empty()) {
      run.outcome = RuleRun::Outcome::kPassed;
    } else {
      run.outcome = RuleRun::Outcome::kFailed;
      for (const Finding& x : o.findings) {
        run.worst = std::max(run.worst, x.severity);
        run.detail += (run.detail.empty() ? "" : "; ") + x.message;
      }
    }
    ev.runs.push_back(std::move(run));
    for (Finding& x : o.findings) ev.findings.push_back(std::move(x));
  }
  std::stable_sort(ev.findings.begin(), ev.findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  return ev;
}

}  // namespace trainready
