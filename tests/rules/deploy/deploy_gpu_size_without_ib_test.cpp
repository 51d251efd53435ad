#include <gtest/gtest.h>

#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {

TEST(DeployGpuSizeWithoutIb, FiresOnANcScaleSetOfSeveralVms) {
  auto o = run_deploy_rule("deploy-gpu-size-without-ib",
                           arm_resources(vmss("Standard_NC80adis_H100_v5", 4, "")));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("4 x Standard_NC80adis_H100_v5"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("Standard_ND96isr_H100_v5"), std::string::npos);
  EXPECT_EQ(o.findings[0].location.line, 6);  // sku.name
}

TEST(DeployGpuSizeWithoutIb, FiresOnSeveralSingleNcVms) {
  auto o = run_deploy_rule("deploy-gpu-size-without-ib",
                           arm_resources(vm("a", "Standard_NC24ads_A100_v4", "") + ",\n" +
                                         vm("b", "Standard_NC24ads_A100_v4", "")));
  EXPECT_EQ(o.findings.size(), 2u);
}

TEST(DeployGpuSizeWithoutIb, QuietOnOneNcVmAndOnInfinibandSizes) {
  EXPECT_TRUE(run_deploy_rule("deploy-gpu-size-without-ib",
                              arm_resources(vm("a", "Standard_NC40ads_H100_v5", "")))
                  .findings.empty());
  EXPECT_TRUE(run_deploy_rule("deploy-gpu-size-without-ib",
                              arm_resources(vmss("Standard_ND96isr_H100_v5", 8, "")))
                  .findings.empty());
}

}  // namespace trainready::test
