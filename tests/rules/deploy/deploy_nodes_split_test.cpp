#include <gtest/gtest.h>

#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {

TEST(DeployNodesSplit, FiresOnTwoPlacementGroups) {
  auto o = run_deploy_rule("deploy-nodes-split",
                           imds_nodes({imds("n1", "Standard_ND96isr_H100_v5", "pg-a", "ss"),
                                       imds("n2", "Standard_ND96isr_H100_v5", "pg-b", "ss")}));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("placementGroupId"), std::string::npos);
}

TEST(DeployNodesSplit, QuietWhenAllShareOne) {
  EXPECT_TRUE(run_deploy_rule("deploy-nodes-split",
                              imds_nodes({imds("n1", "Standard_ND96isr_H100_v5", "pg-a", "ss"),
                                          imds("n2", "Standard_ND96isr_H100_v5", "pg-a", "ss")}))
                  .findings.empty());
}

}  // namespace trainready::test
