#include <gtest/gtest.h>

#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {

namespace {
std::string vnet(const std::string& cidr) {
  return R"({"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2024-01-01",
    "name": "net", "properties": {"addressSpace": {"addressPrefixes": [")" +
         cidr + R"("]}}})";
}
// A VNet in 10.0.0.0/16 with an inline subnet, and an Azure Managed Lustre subnet declared as a
// resource of its own, as `plan --emit` and hand-written AMLFS templates do.
std::string vnet_with_subnets(const std::string& inline_subnet, const std::string& amlfs_subnet) {
  return R"({"type": "Microsoft.Network/virtualNetworks", "apiVersion": "2024-01-01",
    "name": "net", "properties": {"addressSpace": {"addressPrefixes": ["10.0.0.0/16"]},
    "subnets": [{"name": "compute", "properties": {"addressPrefix": ")" +
         inline_subnet + R"("}}]}},
  {"type": "Microsoft.Network/virtualNetworks/subnets", "apiVersion": "2024-01-01",
    "name": "net/amlfs", "properties": {"addressPrefixes": [")" +
         amlfs_subnet + R"("]}},
  {"type": "Microsoft.StorageCache/amlFilesystems", "apiVersion": "2025-07-01",
    "name": "fs", "location": "eastus", "sku": {"name": "AMLFS-Durable-Premium-250"},
    "properties": {"storageCapacityTiB": 8, "filesystemSubnet": "[resourceId('Microsoft.Network/virtualNetworks/subnets', 'net', 'amlfs')]",
    "maintenanceWindow": {"dayOfWeek": "Sunday", "timeOfDayUTC": "00:00"}}})";
}
}  // namespace

TEST(DeployVnetRdmaOverlap, FiresOnASubnetInTheRangeInlineOrOfItsOwn) {
  auto amlfs = run_deploy_rule("deploy-vnet-rdma-overlap",
                               arm_resources(vnet_with_subnets("10.0.0.0/20", "172.16.16.0/24") +
                                             ",\n" + vmss("Standard_ND96isr_H100_v5", 2, "")));
  ASSERT_EQ(amlfs.findings.size(), 1u);
  EXPECT_NE(amlfs.findings[0].message.find("subnet 172.16.16.0/24"), std::string::npos)
      << amlfs.findings[0].message;
  auto inline_subnet = run_deploy_rule(
      "deploy-vnet-rdma-overlap", arm_resources(vnet_with_subnets("172.16.0.0/20", "10.0.16.0/24") +
                                                ",\n" + vmss("Standard_ND96isr_H100_v5", 2, "")));
  ASSERT_EQ(inline_subnet.findings.size(), 1u);
  EXPECT_NE(inline_subnet.findings[0].message.find("subnet 172.16.0.0/20"), std::string::npos);
  EXPECT_TRUE(run_deploy_rule("deploy-vnet-rdma-overlap",
                              arm_resources(vnet_with_subnets("10.0.0.0/20", "10.0.16.0/24") +
                                            ",\n" + vmss("Standard_ND96isr_H100_v5", 2, "")))
                  .findings.empty());
}

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
