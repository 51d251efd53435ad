#include "iac/terraform_plan.h"

#include <gtest/gtest.h>

#include "core/input_error.h"
#include "engine/engine.h"
#include "iac/deployment_inputs.h"

namespace trainready::test {

namespace {
std::string dir() { return std::string(TR_TEST_DATA) + "/deploy/tf-confidential-gpu"; }
}  // namespace

// flrntdfr/Azure-Confidential-GPU-Cluster with its gpu-prod.tfvars: two Slurm partitions of two
// NC40ads / NCC40ads H100 VMs each, no InfiniBand: multi-node jobs run over Ethernet.
TEST(TerraformPlan, ConfidentialGpuClusterFindingsPointAtTheTfSource) {
  DeploymentFacts d = read_deployment_inputs({dir() + "/plan.json"}, {});
  ASSERT_EQ(d.resources.size(), 2u);  // count = 2 instances merged per partition
  EXPECT_EQ(d.resources[0].count.value, 2);
  Evaluation ev = evaluate_deployment_rules(d, Catalog::builtin());
  ASSERT_EQ(ev.findings.size(), 2u);
  for (const auto& f : ev.findings) {
    EXPECT_EQ(f.rule_id, "deploy-gpu-size-without-ib");
    EXPECT_NE(f.location.source.find("modules/partition/main.tf"), std::string::npos);
    EXPECT_EQ(f.location.line, 124);  // size = var.partition_config.node_size
  }
  EXPECT_EQ(ev.findings[0].resource,
            "module.tee_off_partition.azurerm_linux_virtual_machine.partition_node");
}

TEST(TerraformPlan, OrchestratedScaleSetDefaultsSinglePlacementGroupToFalse) {
  DeploymentFacts d = read_deployment_text(R"({
  "format_version": "1.2", "terraform_version": "1.9.8",
  "planned_values": {"root_module": {"resources": [
    {"address": "azurerm_orchestrated_virtual_machine_scale_set.gpu", "mode": "managed",
     "type": "azurerm_orchestrated_virtual_machine_scale_set", "name": "gpu",
     "values": {"name": "gpu", "sku_name": "Standard_ND96isr_H100_v5", "instances": 4,
                "platform_fault_domain_count": 1, "single_placement_group": false}}]}},
  "configuration": {"root_module": {"resources": [
    {"address": "azurerm_orchestrated_virtual_machine_scale_set.gpu",
     "expressions": {"sku_name": {"constant_value": "Standard_ND96isr_H100_v5"}}}]}}})",
                                           "plan.json");
  ASSERT_EQ(d.resources.size(), 1u);
  EXPECT_FALSE(d.resources[0].placement->spg_default_false_because.empty());
  Evaluation ev = evaluate_deployment_rules(d, Catalog::builtin());
  ASSERT_EQ(ev.findings.size(), 1u);
  EXPECT_EQ(ev.findings[0].rule_id, "deploy-ib-spg-off");
}

TEST(TerraformPlan, KnownAfterApplyIsUnknownNotUnset) {
  DeploymentFacts d = read_deployment_text(R"({
  "format_version": "1.2",
  "planned_values": {"root_module": {"resources": [
    {"address": "azurerm_linux_virtual_machine_scale_set.gpu", "mode": "managed",
     "type": "azurerm_linux_virtual_machine_scale_set", "name": "gpu",
     "values": {"sku": "Standard_ND96isr_H100_v5", "instances": 4}}]}},
  "resource_changes": [{"address": "azurerm_linux_virtual_machine_scale_set.gpu",
     "change": {"actions": ["create"], "after_unknown": {"single_placement_group": true}}}]})",
                                           "plan.json");
  ASSERT_EQ(d.resources.size(), 1u);
  EXPECT_TRUE(d.resources[0].placement->single_placement_group.is_unknown());
}

TEST(TerraformPlan, RejectsAnUnknownMajorFormatVersion) {
  EXPECT_THROW(read_deployment_text(R"({"format_version": "2.0", "planned_values": {}})", "p.json"),
               InputError);
}

}  // namespace trainready::test
