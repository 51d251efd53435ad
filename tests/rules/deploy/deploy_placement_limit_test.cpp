#include <gtest/gtest.h>

#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {

TEST(DeployPlacementLimit, WarnsAbove100AndErrsAbove300) {
  auto w = run_deploy_rule(
      "deploy-placement-limit",
      arm_resources(vmss("Standard_ND96isr_H100_v5", 150, R"("singlePlacementGroup": true)")));
  ASSERT_EQ(w.findings.size(), 1u);
  EXPECT_EQ(w.findings[0].severity, Severity::kWarning);
  auto e = run_deploy_rule("deploy-placement-limit",
                           arm_resources(vmss("Standard_ND96isr_H100_v5", 400, "")));
  ASSERT_EQ(e.findings.size(), 1u);
  EXPECT_EQ(e.findings[0].severity, Severity::kError);
}

TEST(DeployPlacementLimit, FiresOnAnAvailabilitySetOver200) {
  auto o = run_deploy_rule(
      "deploy-placement-limit",
      arm_resources(
          R"({"type": "Microsoft.Compute/availabilitySets", "apiVersion": "2024-03-01", "name": "big"},)" +
          vm("n", "Standard_HB120rs_v3",
             R"("availabilitySet": {"id": "[resourceId('Microsoft.Compute/availabilitySets', 'big')]"})",
             250)));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("250 VMs"), std::string::npos);
}

TEST(DeployPlacementLimit, QuietAt100AndWithoutSinglePlacementGroup) {
  EXPECT_TRUE(run_deploy_rule("deploy-placement-limit",
                              arm_resources(vmss("Standard_ND96isr_H100_v5", 100, "")))
                  .findings.empty());
  EXPECT_TRUE(run_deploy_rule(
                  "deploy-placement-limit",
                  arm_resources(vmss("Standard_D4s_v5", 800, R"("singlePlacementGroup": false)")))
                  .findings.empty());
}

}  // namespace trainready::test
