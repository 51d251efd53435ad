#include <gtest/gtest.h>

#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {

namespace {
std::string vnet(const std::string& cidr) {
  return R"({"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2024-01-01",
    "name": "net", "properties": {"addressSpace": {"addressPrefixes": [")" +
         cidr + R"("]}}})";
}
}  // namespace

TEST(DeployVnetRdmaOverlap, FiresOnAnOverlappingSpaceWithIbVms) {
  auto o = run_deploy_rule(
      "deploy-vnet-rdma-overlap",
      arm_resources(vnet("172.16.0.0/12") + ",\n" + vmss("Standard_ND96isr_H100_v5", 2, "")));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].location.line, 6);
}

TEST(DeployVnetRdmaOverlap, QuietOutsideTheRangeOrWithoutIb) {
  EXPECT_TRUE(run_deploy_rule("deploy-vnet-rdma-overlap",
                              arm_resources(vnet("10.0.0.0/16") + ",\n" +
                                            vmss("Standard_ND96isr_H100_v5", 2, "")))
                  .findings.empty());
  EXPECT_TRUE(
      run_deploy_rule("deploy-vnet-rdma-overlap",
                      arm_resources(vnet("172.16.4.0/24") + ",\n" + vmss("Standard_D4s_v5", 2, "")))
          .findings.empty());
}

}  // namespace trainready::test
