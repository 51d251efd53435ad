// plan-does-not-fit: fires when the plan recommends nothing, quiet when it recommends a size.
#include <gtest/gtest.h>

#include "plan/plan.h"
#include "rules/registry.h"

namespace trainready {
namespace {

RuleOutcome judge(const Plan& p) {
  RuleContext ctx;
  ctx.catalog = &Catalog::builtin();
  ctx.plan = &p;
  return find_rule("plan-does-not-fit")->evaluate(ctx);
}

Plan plan_with_one_candidate(bool fits) {
  Plan p;
  Candidate c;
  c.sku = Catalog::builtin().find("Standard_ND96isr_H100_v5");
  c.vms = 1;
  c.gpus = 8;
  c.memory.total = quantity(150e9, "B", "states + activations + buffers + context");
  c.memory.usable = quantity(72e9, "B", "memory less headroom");
  c.memory.fits = fits;
  p.candidates.push_back(c);
  p.recommended = fits;
  if (!fits) p.hints.push_back("ZeRO-3 fits: --zero 3.");
  return p;
}

TEST(PlanDoesNotFit, FiresWhenNothingFits) {
  RuleOutcome o = judge(plan_with_one_candidate(false));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& f = o.findings[0];
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_NE(f.message.find("1 x Standard_ND96isr_H100_v5"), std::string::npos) << f.message;
  ASSERT_FALSE(f.evidence.empty());
  EXPECT_NE(f.evidence[0].text.find("150.00 GB needed, 72.00 GB usable"), std::string::npos)
      << f.evidence[0].text;
  EXPECT_EQ(f.fix, "ZeRO-3 fits: --zero 3.");
}

TEST(PlanDoesNotFit, QuietWhenTheRecommendationFits) {
  RuleOutcome o = judge(plan_with_one_candidate(true));
  EXPECT_FALSE(o.skipped);
  EXPECT_TRUE(o.findings.empty());
}

TEST(PlanDoesNotFit, NoCandidateIsAnErrorNotASkip) {
  Plan p;
  RuleOutcome o = judge(p);
  EXPECT_FALSE(o.skipped);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
}

TEST(PlanDoesNotFit, ALayoutThatCannotRunSaysSo) {
  Plan p = plan_with_one_candidate(false);
  p.candidates[0].runnable = false;
  p.candidates[0].problems = {"tp 16 is more than the 8 GPUs of one VM"};
  RuleOutcome o = judge(p);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("cannot run"), std::string::npos) << o.findings[0].message;
  EXPECT_EQ(o.findings[0].evidence[0].text, "tp 16 is more than the 8 GPUs of one VM");
}

}  // namespace
}  // namespace trainready
