#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(GpudirectRdmaDisabled, FiresWithoutPeermem) {
  NodeFacts n = healthy_nd_h100();
  n.modules.value.modules.erase("nvidia_peermem");
  RuleOutcome o = run_rule("gpudirect-rdma-disabled", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].fix.find("modprobe nvidia_peermem"), std::string::npos);
}

TEST(GpudirectRdmaDisabled, QuietWithEitherModuleAndOnSizesWithoutGdr) {
  EXPECT_TRUE(run_rule("gpudirect-rdma-disabled", healthy_nd_h100()).findings.empty());
  NodeFacts n = healthy_nd_h100();
  n.modules.value.modules.erase("nvidia_peermem");
  n.modules.value.modules["nv_peer_mem"] = ModuleInfo{true, "", {}};
  EXPECT_TRUE(run_rule("gpudirect-rdma-disabled", n).findings.empty());
  n.modules.value.modules.erase("nv_peer_mem");
  n.imds.value.vm_size = "Standard_NC40ads_H100_v5";
  EXPECT_TRUE(run_rule("gpudirect-rdma-disabled", n).findings.empty());
  n.imds.value.vm_size = "Standard_ND96isr_MI300X_v5";  // AMD: no nvidia_peermem expected
  EXPECT_TRUE(run_rule("gpudirect-rdma-disabled", n).findings.empty());
}

TEST(GpudirectRdmaDisabled, UnknownSizeJudgesFromTheNode) {
  NodeFacts n = healthy_nd_h100();
  n.imds = Fact<ImdsInfo>::missing("off Azure");
  n.modules.value.modules.erase("nvidia_peermem");
  EXPECT_EQ(run_rule("gpudirect-rdma-disabled", n).findings.size(), 1u);
}
