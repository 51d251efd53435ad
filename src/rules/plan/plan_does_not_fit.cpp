// plan-does-not-fit: no candidate VM size holds the job in GPU memory with the layout asked for.
#include "core/units.h"
#include "plan/plan.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class PlanDoesNotFit : public Rule {
 public:
  std::string_view id() const override { return "plan-does-not-fit"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "No VM size holds this job in GPU memory as laid out";
  }
  RuleScope scope() const override { return RuleScope::kPlan; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const Plan& p = *ctx.plan;
    if (p.recommended) return {};
    RuleOutcome o;
    if (p.candidates.empty() || p.candidates.front().sku == nullptr) {
      Finding f = finding("no VM size could be planned for this job");
      f.cause = "The catalog (or --sku) left no candidate size for this job.";
      f.fix = "Run `trainready catalog` for the sizes known, or pass --catalog FILE.";
      o.findings.push_back(std::move(f));
      return o;
    }
    const Candidate& c = p.candidates.front();
    Finding f = finding(c.runnable ? "no candidate holds this job in GPU memory; the closest is " +
                                         std::to_string(c.vms) + " x " + c.sku->name
                                   : "the layout asked for cannot run on the closest candidate, " +
                                         std::to_string(c.vms) + " x " + c.sku->name);
    if (c.runnable) {
      f.evidence.push_back({"memory per GPU on " + c.sku->name + ": " +
                                format_gb(c.memory.total.value, 2) + " needed, " +
                                format_gb(c.memory.usable.value, 2) + " usable (" +
                                c.memory.total.formula + ")",
                            {c.memory.total.source, 0}});
    }
    for (const std::string& why : c.problems) f.evidence.push_back({why, {}});
    f.cause =
        !c.runnable && c.memory.fits
            ? "Memory is not the problem: the layout asked for cannot run (" +
                  (c.problems.empty() ? std::string("see the evidence") : c.problems.front()) + ")."
            : "The model states, activations and buffers per GPU exceed the GPU memory "
              "left after headroom, with the sharding, parallelism and recomputation given.";
    std::string fix;
    for (const std::string& h : p.hints) fix += (fix.empty() ? "" : " ") + h;
    f.fix = fix.empty() ? "Shard more (ZeRO-3), add tensor or pipeline parallelism, recompute "
                          "activations, or choose a size with more GPU memory."
                        : fix;
    o.findings.push_back(std::move(f));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_plan_does_not_fit() { return std::make_unique<PlanDoesNotFit>(); }

}  // namespace trainready
