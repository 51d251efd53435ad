// plan-cluster-misses-plan: with every measurement in place of the plan's assumptions, the run
// takes longer than planned by more than the margin (--margin, default 10 %).
#include <algorithm>

#include "plan/acceptance.h"
#include "rules/plan/plan_check_text.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class PlanClusterMissesPlan : public Rule {
 public:
  std::string_view id() const override { return "plan-cluster-misses-plan"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "The cluster as measured misses the plan by more than the margin";
  }
  RuleScope scope() const override { return RuleScope::kPlanCheck; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const PlanAcceptance& a = *ctx.acceptance;
    if (a.checks.empty())
      return RuleOutcome::skip(
          "no measured file held a value the plan assumed (see the notes): nothing was compared");
    const PlannedRun& p = a.planned;
    const double over = a.step_ratio.value - 1;
    if (over <= a.margin) return {};
    RuleOutcome o;
    std::string money;
    if (a.cost && p.cost_per_run)
      money = ", " + format_usd(*p.cost_per_run) + " → " + format_usd(a.cost->per_run.value);
    Finding f =
        finding("the cluster misses the plan by " + plan_check_percent(over) + " (margin " +
                plan_check_percent(a.margin) + "): step " + format_duration(p.step_seconds) +
                " → " + format_duration(a.step.step_seconds.value) + ", run " +
                format_duration(p.run_seconds) + " → " + format_duration(a.step.run_seconds.value) +
                money + " on " + std::to_string(p.vms) + " × " + p.sku);
    // The measurements that cost the most step time alone, first.
    std::vector<const AssumptionCheck*> order;
    for (const AssumptionCheck& c : a.checks) order.push_back(&c);
    std::stable_sort(order.begin(), order.end(), [](const auto* x, const auto* y) {
      return x->step_seconds > y->step_seconds;
    });
    for (const AssumptionCheck* c : order) {
      f.evidence.push_back(
          {c->what + ": assumed " + format_rate_si(c->assumed.value) + ", measured " +
               format_rate_si(c->measured.value) + "; alone, " +
               plan_check_cost_sentence(p, c->step_seconds, c->run_seconds, c->cost_per_run),
           {c->measured.source, 0}});
    }
    f.evidence.push_back({"recomputed step: " + a.step.step_seconds.formula + " = " +
                              format_duration(a.step.step_seconds.value) +
                              "; GPUs wait mostly on " + a.step.dominant_wait,
                          {p.file, 0}});
    f.cause =
        "The measured cluster is slower than the figures the plan (and its price) were "
        "made with; the evidence lists what each measurement costs alone, largest first.";
    f.fix =
        "Fix what plan-assumption-broken names and measure again; or accept the slower "
        "cluster knowingly: `trainready plan` with --ib-efficiency or --mfu set to what was "
        "measured gives the plan that cluster supports (--margin sets how much slower is "
        "acceptable).";
    o.findings.push_back(std::move(f));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_plan_cluster_misses_plan() {
  return std::make_unique<PlanClusterMissesPlan>();
}

}  // namespace trainready
