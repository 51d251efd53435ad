#include <gtest/gtest.h>

#include "core/input_error.h"
#include "engine/suppressions.h"
#include "iac/deployment_inputs.h"
#include "iac/suppression_file.h"
#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {

TEST(SuppressionFile, ParsesEntriesAndRejectsBadOnesWithTheirLine) {
  auto e = parse_suppression_file(R"({"suppressions": [
  {"rule": "deploy-ib-spg-off", "resource": "gpu*", "justification": "why", "expires": "2027-01-31"}
]})",
                                  "s.json");
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].where.line, 2);
  try {
    parse_suppression_file(
        "{\"suppressions\": [\n{\"rule\": \"x\",\n \"justification\": \"y\",\n \"until\": \"z\"}]}",
        "s.json");
    FAIL();
  } catch (const InputError& err) {
    EXPECT_EQ(err.line(), 4);
  }
  EXPECT_THROW(parse_suppression_file(R"({"suppressions": [{"rule": "x"}]})", "s.json"),
               InputError);
  EXPECT_THROW(
      parse_suppression_file(
          R"({"suppressions": [{"rule": "x", "justification": "y", "expires": "31/01/2027"}]})",
          "s.json"),
      InputError);
}

TEST(Suppressions, SidecarAndInlineMoveFindingsOutAndExpiredOnesDoNot) {
  DeploymentFacts d =
      arm_resources(vmss("Standard_ND96isr_H100_v5", 8, R"("singlePlacementGroup": false)"));
  Evaluation ev = evaluate_deployment_rules(d, Catalog::builtin());
  ASSERT_EQ(ev.findings.size(), 1u);
  std::vector<SuppressionEntry> entries{
      {"deploy-ib-spg-off", "gp*", "split on purpose", "2026-01-01", {"s.json", 2}}};
  Evaluation expired = ev;
  auto out = apply_suppressions(&expired, d, entries, "2026-11-30");
  EXPECT_EQ(expired.findings.size(), 1u);
  ASSERT_EQ(out.warnings.size(), 1u);
  EXPECT_NE(out.warnings[0].find("expired"), std::string::npos);
  out = apply_suppressions(&ev, d, entries, "2025-12-31");
  EXPECT_TRUE(ev.findings.empty());
  ASSERT_EQ(out.suppressed.size(), 1u);
  EXPECT_EQ(out.suppressed[0].kind, "file");

  d.resources[0].suppressions.emplace_back("deploy-ib-spg-off", "inline reason");
  Evaluation ev2 = evaluate_deployment_rules(d, Catalog::builtin());
  auto out2 = apply_suppressions(&ev2, d, {}, "2026-11-30");
  EXPECT_TRUE(ev2.findings.empty());
  ASSERT_EQ(out2.suppressed.size(), 1u);
  EXPECT_EQ(out2.suppressed[0].kind, "inline");
}

}  // namespace trainready::test
