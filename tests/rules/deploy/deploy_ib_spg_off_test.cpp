#include <gtest/gtest.h>

#include "rules/deploy/deploy_rule_support.h"

namespace trainready::test {

TEST(DeployIbSpgOff, FiresOnSinglePlacementGroupFalse) {
  auto o = run_deploy_rule(
      "deploy-ib-spg-off",
      arm_resources(vmss("Standard_ND96isr_H100_v5", 8, R"("singlePlacementGroup": false)")));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_EQ(o.findings[0].location.line, 6);
}

TEST(DeployIbSpgOff, FiresOnFlexibleMaxSpreadingWithItUnset) {
  auto o = run_deploy_rule(
      "deploy-ib-spg-off",
      arm_resources(vmss("Standard_ND96isr_H100_v5", 8,
                         R"("orchestrationMode": "Flexible", "platformFaultDomainCount": 1)")));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].evidence[1].text.find("max spreading"), std::string::npos);
}

TEST(DeployIbSpgOff, AksPoolOfAnIbSizeIsANote) {
  auto o = run_deploy_rule("deploy-ib-spg-off", arm_resources(R"({
    "type": "Microsoft.ContainerService/managedClusters", "apiVersion": "2024-02-01",
    "name": "aks", "properties": {"agentPoolProfiles": [
      {"name": "gpu", "vmSize": "Standard_ND96asr_v4", "count": 4}]}})"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
}

TEST(DeployIbSpgOff, QuietOnTrueOnUniformDefaultAndOnNonIbSizes) {
  EXPECT_TRUE(
      run_deploy_rule("deploy-ib-spg-off", arm_resources(vmss("Standard_ND96isr_H100_v5", 8,
                                                              R"("singlePlacementGroup": true)")))
          .findings.empty());
  EXPECT_TRUE(
      run_deploy_rule("deploy-ib-spg-off", arm_resources(vmss("Standard_ND96isr_H100_v5", 8, "")))
          .findings.empty());
  EXPECT_TRUE(
      run_deploy_rule("deploy-ib-spg-off",
                      arm_resources(vmss("Standard_D4s_v5", 8, R"("singlePlacementGroup": false)")))
          .findings.empty());
}

TEST(DeployIbSpgOff, UnresolvedValueIsANoteNotAPass) {
  auto o =
      run_deploy_rule("deploy-ib-spg-off",
                      arm_resources(vmss("Standard_ND96isr_H100_v5", 8,
                                         R"("singlePlacementGroup": "[reference('x').spg]")")));
  EXPECT_TRUE(o.findings.empty());
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("[reference('x').spg]"), std::string::npos);
}

// The configuration the doctor used to recommend (Flexible, platformFaultDomainCount=1,
// singlePlacementGroup=true): the orchestration-modes page says max spreading gives single
// placement group false, so asking for true does not make one InfiniBand group.
TEST(DeployIbSpgOff, FiresOnFlexibleMaxSpreadingEvenWhenTrueIsAskedFor) {
  auto o = run_deploy_rule(
      "deploy-ib-spg-off",
      arm_resources(vmss("Standard_ND96isr_H100_v5", 8,
                         R"("orchestrationMode": "Flexible", "platformFaultDomainCount": 1,
                            "singlePlacementGroup": true)")));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("max spreading"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("Uniform orchestration with singlePlacementGroup=true"),
            std::string::npos);
  EXPECT_EQ(o.findings[0].fix.find("platformFaultDomainCount=1) with"), std::string::npos);
}

TEST(DeployIbSpgOff, QuietOnFlexibleFixedSpreading) {
  EXPECT_TRUE(
      run_deploy_rule("deploy-ib-spg-off", arm_resources(vmss("Standard_ND96isr_H100_v5", 8,
                                                              R"("orchestrationMode": "Flexible",
                                                    "platformFaultDomainCount": 2)")))
          .findings.empty());
}

}  // namespace trainready::test
