#include <gtest/gtest.h>

#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {

TEST(DeployVmSizeMixed, IbAndNonIbSizesAreAnError) {
  auto o = run_deploy_rule("deploy-vm-size-mixed",
                           imds_nodes({imds("n1", "Standard_ND96isr_H100_v5", "pg", "ss"),
                                       imds("n2", "Standard_NC80adis_H100_v5", "pg", "ss")}));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
}

TEST(DeployVmSizeMixed, QuietOnOneSizeAndOnTemplates) {
  EXPECT_TRUE(run_deploy_rule("deploy-vm-size-mixed",
                              imds_nodes({imds("n1", "Standard_ND96isr_H100_v5", "pg", "ss"),
                                          imds("n2", "standard_nd96isr_h100_v5", "pg", "ss")}))
                  .findings.empty());
  EXPECT_TRUE(run_deploy_rule("deploy-vm-size-mixed",
                              arm_resources(vm("a", "Standard_ND96isr_H100_v5", "") + ",\n" +
                                            vm("b", "Standard_D4s_v5", "")))
                  .findings.empty());
}

}  // namespace trainready::test
