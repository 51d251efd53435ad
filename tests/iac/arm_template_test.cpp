// The real hpcpack-template (Bicep-compiled, languageVersion 2.0, nested inner-scope deployments
// in copy loops) with the parameter files a user would pass: the findings a reviewer expects.
#include "iac/arm_template.h"

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "iac/deployment_inputs.h"
#include "support/paths.h"

namespace trainready::test {

namespace {
const std::string kTemplate = "deploy-templates/hpcpack-add-lnx-compute-nodes.arm.json";
std::string params(const std::string& name) {
  return std::string(TR_TEST_DATA) + "/deploy/" + name;
}
std::vector<std::string> rules_of(const Evaluation& ev) {
  std::vector<std::string> ids;
  for (const auto& f : ev.findings) ids.push_back(f.rule_id);
  return ids;
}
}  // namespace

TEST(ArmTemplate, HpcpackDefaultsAreCpuVmsAndLintClean) {
  DeploymentFacts d = read_deployment_inputs({fixture(kTemplate)}, {});
  ASSERT_EQ(d.resources.size(), 1u);  // 10 compute VMs (one copy loop); no availability set
  EXPECT_EQ(d.resources[0].vm_size.value, "Standard_D3_v2");
  EXPECT_EQ(d.resources[0].count.value, 10);
  EXPECT_TRUE(evaluate_deployment_rules(d, Catalog::builtin()).findings.empty());
}

TEST(ArmTemplate, HpcpackNdWithoutAvailabilitySetIsStandaloneAndHasNoIbDriver) {
  DeploymentFacts d = read_deployment_inputs(
      {fixture(kTemplate), params("hpcpack-nd-standalone.parameters.json")}, {});
  ASSERT_EQ(d.resources.size(), 1u);
  const auto& vm = d.resources[0];
  EXPECT_EQ(vm.name, "ndcn000");  // copyIndex 0 through the inner-scope parameter
  EXPECT_EQ(vm.count.value, 16);
  EXPECT_TRUE(vm.availability_set.is_unset());  // if(empty(...), null(), ...)
  // The template installs the InfiniBand driver extension only on CentOS / RHEL 7 images.
  for (const auto& e : vm.extensions) EXPECT_NE(e.type, "InfiniBandDriverLinux");
  EXPECT_FALSE(vm.extensions.empty());  // its HPC Pack node agent
  Evaluation ev = evaluate_deployment_rules(d, Catalog::builtin());
  EXPECT_EQ(rules_of(ev),
            (std::vector<std::string>{"deploy-ib-vms-ungrouped", "deploy-ib-image-no-driver"}));
  EXPECT_EQ(ev.findings[0].location.line, vm.where.line);
}

TEST(ArmTemplate, HpcpackNdInAnAvailabilitySetWithTheHpcImageIsClean) {
  DeploymentFacts d = read_deployment_inputs(
      {fixture(kTemplate), params("hpcpack-nd-availability-set.parameters.json")}, {});
  ASSERT_EQ(d.resources.size(), 2u);
  Evaluation ev = evaluate_deployment_rules(d, Catalog::builtin());
  EXPECT_TRUE(ev.findings.empty());
}

TEST(ArmTemplate, HpcpackNdScaleSetGetsSinglePlacementGroupUpTo100) {
  DeploymentFacts d =
      read_deployment_inputs({fixture(kTemplate), params("hpcpack-nd-vmss.parameters.json")}, {});
  ASSERT_EQ(d.resources.size(), 1u);
  EXPECT_EQ(d.resources[0].kind, ResourceKind::kScaleSet);
  EXPECT_TRUE(d.resources[0].placement->single_placement_group.is_known());
  EXPECT_TRUE(d.resources[0].placement->single_placement_group.value);
  EXPECT_EQ(d.resources[0].count.value, 40);
  EXPECT_TRUE(evaluate_deployment_rules(d, Catalog::builtin()).findings.empty());
}

TEST(ArmTemplate, CommandLineParameterWinsOverTheFile) {
  DeploymentInputOptions o;
  o.parameters = {"computeNodeVMSize=Standard_D4s_v5"};
  DeploymentFacts d = read_deployment_inputs(
      {fixture(kTemplate), params("hpcpack-nd-standalone.parameters.json")}, o);
  EXPECT_EQ(d.resources[0].vm_size.value, "Standard_D4s_v5");
}

TEST(ArmTemplate, FalseConditionsAreSkippedAndUnknownOnesNoted) {
  DeploymentFacts d = read_deployment_text(R"({
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {"deploy": {"type": "bool", "defaultValue": false}},
  "resources": [
    {"condition": "[parameters('deploy')]", "type": "Microsoft.Compute/virtualMachines", "name": "a",
     "properties": {"hardwareProfile": {"vmSize": "Standard_ND96isr_H100_v5"}}},
    {"condition": "[reference('x').on]", "type": "Microsoft.Compute/virtualMachines", "name": "b",
     "properties": {"hardwareProfile": {"vmSize": "Standard_ND96isr_H100_v5"}}}
  ]})",
                                           "c.json");
  ASSERT_EQ(d.resources.size(), 1u);
  EXPECT_EQ(d.resources[0].name, "b");
  EXPECT_TRUE(d.resources[0].conditional);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_NE(d.notes[0].find("c.json:8"), std::string::npos);
}

TEST(ArmTemplate, InlineSuppressionIsReadFromResourceMetadata) {
  DeploymentFacts d = read_deployment_text(R"({
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "resources": {"gpu": {"type": "Microsoft.Compute/virtualMachineScaleSets", "name": "gpu",
    "metadata": {"trainready": ["deploy-ib-spg-off: one job per placement group by design"]},
    "sku": {"name": "Standard_ND96isr_H100_v5", "capacity": 4},
    "properties": {"singlePlacementGroup": false}}}})",
                                           "s.json");
  ASSERT_EQ(d.resources.size(), 1u);
  ASSERT_EQ(d.resources[0].suppressions.size(), 1u);
  EXPECT_EQ(d.resources[0].suppressions[0].first, "deploy-ib-spg-off");
  EXPECT_EQ(d.resources[0].suppressions_where.line, 5);
}

// Expressions are evaluated where the reader reads them (JsonFields::evaluate_in), not over the
// whole resource first: an expression that yields an object is read into, an unresolved one
// above a property makes it unknown, and what is not read (location) is never needed.
TEST(ArmTemplate, PropertiesAreEvaluatedWhereTheyAreRead) {
  DeploymentFacts d = read_deployment_text(R"({
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": {"set": {"type": "string"}},
  "variables": {"image": {"publisher": "microsoft-dsvm", "offer": "ubuntu-hpc", "sku": "2204"}},
  "resources": [
    {"type": "Microsoft.Compute/virtualMachines", "apiVersion": "2024-03-01",
     "name": "[concat('vm', string(7))]",
     "location": "[reference('x').location]",
     "properties": {
       "hardwareProfile": {"vmSize": "[if(true(), 'Standard_ND96isr_H100_v5', 'x')]"},
       "availabilitySet": "[parameters('set')]",
       "storageProfile": {
         "imageReference": "[variables('image')]"}}}
  ]
})",
                                           "t.json");
  ASSERT_EQ(d.resources.size(), 1u);
  const DeploymentResource& vm = d.resources[0];
  EXPECT_EQ(vm.name, "vm7");
  EXPECT_TRUE(vm.vm_size.is_known());
  EXPECT_EQ(vm.vm_size.value, "Standard_ND96isr_H100_v5");
  ASSERT_TRUE(vm.availability_set.is_unknown());
  EXPECT_EQ(vm.availability_set.raw, "[parameters('set')]");
  EXPECT_EQ(vm.availability_set.where.line, 12);
  EXPECT_EQ(vm.image_publisher.value, "microsoft-dsvm");
  EXPECT_EQ(vm.image_offer.value, "ubuntu-hpc");
  EXPECT_EQ(vm.image_sku.value, "2204");
  EXPECT_EQ(vm.image_publisher.where.line, 14);
  EXPECT_TRUE(vm.image_id.is_unset());
}

}  // namespace trainready::test
