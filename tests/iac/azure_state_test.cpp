#include "iac/azure_state.h"

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "iac/deployment_inputs.h"
#include "support/paths.h"

namespace trainready::test {

// Two real IMDS documents (WALinuxAgent's test data): one VM in a scale set's placement group,
// one outside any, of different sizes: not one InfiniBand cluster.
TEST(AzureState, TwoRealImdsDocumentsAreSplitAndMixed) {
  DeploymentFacts d =
      read_deployment_inputs({fixture("imds/walinuxagent-imds-compute-vmss-trustedlaunch.json"),
                              fixture("imds/walinuxagent-imds-instance-valid.json")},
                             {});
  ASSERT_EQ(d.resources.size(), 2u);
  EXPECT_EQ(d.resources[0].live->placement_group_id.value, "f67c14ab-e92c-408c-ae2d-da15866ec79a");
  Evaluation ev = evaluate_deployment_rules(d, Catalog::builtin());
  std::vector<std::string> ids;
  for (const auto& f : ev.findings) ids.push_back(f.rule_id);
  EXPECT_EQ(ids, (std::vector<std::string>{"deploy-nodes-split", "deploy-nodes-split",
                                           "deploy-vm-size-mixed"}));
}

TEST(AzureState, ReadsAzOutputAndResourceGraphShapes) {
  DeploymentFacts d = read_deployment_text(R"([
  {"type": "Microsoft.Compute/virtualMachines", "name": "a", "id": "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/virtualMachines/a",
   "hardwareProfile": {"vmSize": "Standard_ND96isr_H100_v5"}, "powerState": "VM running",
   "tags": {"trainready-skip": "deploy-ib-vms-ungrouped: test pair"}},
  {"type": "microsoft.compute/virtualmachines", "name": "b",
   "properties": {"hardwareProfile": {"vmSize": "Standard_ND96isr_H100_v5"},
                  "availabilitySet": {"id": "/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/availabilitySets/SET1"}}}
])",
                                           "vms.json");
  ASSERT_EQ(d.resources.size(), 2u);
  EXPECT_EQ(d.resources[0].vm_size.value, "Standard_ND96isr_H100_v5");
  EXPECT_EQ(d.resources[1].availability_set.value, "set1");
  ASSERT_EQ(d.resources[0].suppressions.size(), 1u);
  EXPECT_EQ(d.resources[0].suppressions_where.line, 4);
}

}  // namespace trainready::test
