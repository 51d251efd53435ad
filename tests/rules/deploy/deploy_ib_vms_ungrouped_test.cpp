#include <gtest/gtest.h>

#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {

TEST(DeployIbVmsUngrouped, FiresOnStandaloneIbVmsInACopyLoop) {
  auto o = run_deploy_rule("deploy-ib-vms-ungrouped",
                           arm_resources(vm("nd", "Standard_ND96isr_H100_v5", "", 4)));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("4 InfiniBand VMs are standalone"), std::string::npos);
}

TEST(DeployIbVmsUngrouped, FiresOnVmsInTwoAvailabilitySets) {
  auto o = run_deploy_rule(
      "deploy-ib-vms-ungrouped",
      arm_resources(
          vm("a", "Standard_ND96asr_v4",
             R"("availabilitySet": {"id": "[resourceId('Microsoft.Compute/availabilitySets', 'set-a')]"})") +
          ",\n" +
          vm("b", "Standard_ND96asr_v4",
             R"("availabilitySet": {"id": "[resourceId('Microsoft.Compute/availabilitySets', 'set-b')]"})")));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("spread over 2"), std::string::npos);
}

TEST(DeployIbVmsUngrouped, QuietWhenAllShareOneAvailabilitySet) {
  const std::string set =
      R"("availabilitySet": {"id": "[resourceId('Microsoft.Compute/availabilitySets', 'set-a')]"})";
  EXPECT_TRUE(run_deploy_rule("deploy-ib-vms-ungrouped",
                              arm_resources(vm("a", "Standard_ND96asr_v4", set, 8)))
                  .findings.empty());
  EXPECT_TRUE(
      run_deploy_rule("deploy-ib-vms-ungrouped", arm_resources(vm("a", "Standard_D4s_v5", "", 8)))
          .findings.empty());
}

// Issue 22 item 2: a scale set whose capacity is a required parameter without a value is "at
// least" one VM, never "1 VM".
TEST(DeployIbVmsUngrouped, UnresolvedCapacityIsAtLeastNotOne) {
  auto d = arm_resources(
      R"({"type": "Microsoft.Compute/virtualMachineScaleSets", "name": "a",
          "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": "[parameters('nodes')]"},
          "properties": {"singlePlacementGroup": true}},
         {"type": "Microsoft.Compute/virtualMachineScaleSets", "name": "b",
          "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 4},
          "properties": {"singlePlacementGroup": true}})");
  auto o = run_deploy_rule("deploy-ib-vms-ungrouped", d);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].message, "at least 5 InfiniBand VMs are spread over 2 InfiniBand groups");
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("capacity [parameters('nodes')] not resolved"), std::string::npos);
}

}  // namespace trainready::test
