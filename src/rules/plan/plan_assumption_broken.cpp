// plan-assumption-broken: a value the plan assumed (bus bandwidth, the slowest link, the storage
// feed) was measured lower than assumed by more than the margin (--margin, default 10 %).
#include "plan/acceptance.h"
#include "rules/plan/plan_check_text.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

struct Advice {
  const char* cause;
  const char* fix;
};

Advice advice(const std::string& id) {
  if (id == "inter-vm-busbw" || id == "intra-vm-busbw-dp")
    return {
        "The all-reduce between VMs is slower than the plan's figure: a degraded HCA, port or "
        "cable (one slow link sets a ring's pace), NCCL on the wrong transport (NET/Socket), "
        "GPUDirect RDMA off, or VMs outside one placement group.",
        "Run `trainready fleet --bandwidth` for the pair matrix and the slow node or link, "
        "`trainready doctor` on the nodes it names, and `trainready nccl LOG` on a run with "
        "NCCL_DEBUG=INFO; replace or drain what they name, then measure again."};
  if (id == "intra-vm-busbw")
    return {
        "The all-reduce inside one VM is slower than the catalog's figure: NVLink or "
        "NVSwitch degraded (Fabric Manager, an inactive link), GPU clocks throttled, or the "
        "sweep ran on fewer GPUs than the VM has.",
        "Run `trainready doctor` on the VM (nvlink-inactive, fabric-manager-not-ready, "
        "gpu-clocks-throttled) and sweep again with one rank per GPU."};
  if (id == "slowest-link")
    return {
        "One pair of VMs moves less than the plan's network share: a degraded HCA, cable or "
        "leaf port on that pair's path.",
        "See fleet-link-bandwidth-low and fleet-node-bandwidth-low in the fleet report; "
        "drain or replace the node, or keep pipeline stages off that pair."};
  return {
      "The storage path delivers less per VM than the plan's storage option: a smaller file "
      "system than planned, the front-end NIC shared with other traffic, or a cold cache "
      "where the plan assumed local NVMe.",
      "Stage the data to local NVMe (`trainready stage`), size the file system for the "
      "demand (docs/plan.md, the data model), or run `trainready bench storage --feed` on "
      "the path the job reads."};
}

class PlanAssumptionBroken : public Rule {
 public:
  std::string_view id() const override { return "plan-assumption-broken"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "A value the plan assumed was measured lower than assumed";
  }
  RuleScope scope() const override { return RuleScope::kPlanCheck; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const PlanAcceptance& a = *ctx.acceptance;
    if (a.checks.empty())
      return RuleOutcome::skip(
          "no measured file held a value the plan assumed (see the notes): nothing was compared");
    RuleOutcome o;
    for (const AssumptionCheck& c : a.checks) {
      if (c.ratio >= 1 - a.margin) continue;
      const std::string measured_by = c.measured.source.substr(0, c.measured.source.find(": "));
      Finding f = finding(
          "the plan assumed " + format_rate_si(c.assumed.value) + " of " + c.what + "; " +
          measured_by + " measured " + format_rate_si(c.measured.value) + " (" +
          plan_check_percent(c.ratio) + " of it): " +
          plan_check_cost_sentence(a.planned, c.step_seconds, c.run_seconds, c.cost_per_run));
      f.evidence.push_back(
          {"assumed " + format_rate_si(c.assumed.value) + " (" + c.assumed.formula + ")",
           {c.assumed.source, 0}});
      f.evidence.push_back(
          {"measured " + format_rate_si(c.measured.value) + " (" + c.measured.formula + ")",
           {c.measured.source, 0}});
      for (const std::string& n : c.notes) f.evidence.push_back({n, {}});
      const Advice adv = advice(c.id);
      f.cause = adv.cause;
      f.fix = adv.fix;
      o.findings.push_back(std::move(f));
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_plan_assumption_broken() {
  return std::make_unique<PlanAssumptionBroken>();
}

}  // namespace trainready
