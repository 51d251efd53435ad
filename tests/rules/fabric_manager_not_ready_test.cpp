#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

// Azure/azhpc-images ndv5.sh waits for nvidia-fabricmanager to be active on ND H100/H200 v5.
TEST(FabricManagerNotReady, FiresWhenGpusAreNotRegistered) {
  NodeFacts n = healthy_nd_h100();
  for (auto& g : n.gpus.value.gpus) g.fabric_state = "not-started";
  RuleOutcome o = run_rule("fabric-manager-not-ready", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("8 of 8 GPUs"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("nvidia-fabricmanager"), std::string::npos);
  n = healthy_nd_h100();
  n.gpus.value.gpus[3].fabric_status = 9;  // completed, but the registration failed
  EXPECT_EQ(run_rule("fabric-manager-not-ready", n).findings.size(), 1u);
}

TEST(FabricManagerNotReady, QuietWhenCompletedOrWithoutNvswitch) {
  EXPECT_TRUE(run_rule("fabric-manager-not-ready", healthy_nd_h100()).findings.empty());
  NodeFacts n = healthy_nd_h100();
  for (auto& g : n.gpus.value.gpus) g.fabric_state = "not-started";
  n.imds.value.vm_size = "Standard_NC80adis_H100_v5";  // no NVSwitch
  EXPECT_TRUE(run_rule("fabric-manager-not-ready", n).findings.empty());
}

// A100 reports no GPU fabric state: a skip that says how to check, never a pass.
TEST(FabricManagerNotReady, NoFabricStateIsASkip) {
  NodeFacts n = healthy_nd_h100();
  for (auto& g : n.gpus.value.gpus) g.fabric_state.reset();
  RuleOutcome o = run_rule("fabric-manager-not-ready", n);
  EXPECT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("systemctl is-active nvidia-fabricmanager"), std::string::npos);
}
