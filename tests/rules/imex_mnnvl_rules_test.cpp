#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

namespace {

// A healthy ND GB200 v6 VM: 4 GPUs registered with the multi-node NVLink fabric, the
// nvidia-imex daemon running and IMEX channel 0 present (Azure/azhpc-images sets these up).
NodeFacts healthy_gb200() {
  NodeFacts n = healthy_nd_h100();
  n.imds.value.vm_size = "Standard_ND128isr_NDR_GB200_v6";
  n.gpus.value.gpus.resize(4);
  for (Gpu& g : n.gpus.value.gpus) {
    g.name = "NVIDIA GB200";
    g.fabric_state = "completed";
    g.fabric_status = 0;
    g.fabric_cluster_uuid = "5a1c0b2e9d8f4c3ab1e2d3c4b5a69788";
    g.fabric_clique_id = 32766;
  }
  n.imex_daemon = Fact<bool>::present(true, {"/proc/1234/comm", 0});
  n.imex_channels =
      Fact<std::vector<std::string>>::present({"channel0"}, {"/dev/nvidia-caps-imex-channels", 0});
  return n;
}

}  // namespace

TEST(ImexNotRunning, FiresOnAnMnnvlSizeWithoutTheDaemon) {
  NodeFacts n = healthy_gb200();
  n.imex_daemon = Fact<bool>::present(false, {"/proc/*/comm", 0});
  RuleOutcome o = run_rule("imex-not-running", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].fix.find("nvidia-imex"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("2.25.2"), std::string::npos);
}

TEST(ImexNotRunning, QuietWhenRunningOrNotMnnvlAndSkipsWhenUnknown) {
  EXPECT_TRUE(run_rule("imex-not-running", healthy_gb200()).findings.empty());
  NodeFacts h = healthy_nd_h100();
  h.imex_daemon = Fact<bool>::present(false);
  RuleOutcome o = run_rule("imex-not-running", h);
  EXPECT_TRUE(o.findings.empty());
  EXPECT_FALSE(o.not_applicable.empty());
  NodeFacts n = healthy_gb200();
  n.imex_daemon = Fact<bool>::missing("the snapshot records no process names");
  o = run_rule("imex-not-running", n);
  EXPECT_TRUE(o.skipped);
}

TEST(ImexChannelMissing, FiresWithoutChannel0) {
  NodeFacts n = healthy_gb200();
  n.imex_channels =
      Fact<std::vector<std::string>>::present({}, {"/dev/nvidia-caps-imex-channels", 0});
  RuleOutcome o = run_rule("imex-channel-missing", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].fix.find("NVreg_CreateImexChannel0=1"), std::string::npos);
}

TEST(ImexChannelMissing, QuietWithChannel0OrOffMnnvl) {
  EXPECT_TRUE(run_rule("imex-channel-missing", healthy_gb200()).findings.empty());
  NodeFacts h = healthy_nd_h100();
  h.imex_channels = Fact<std::vector<std::string>>::present({});
  EXPECT_TRUE(run_rule("imex-channel-missing", h).findings.empty());
  NodeFacts n = healthy_gb200();
  n.imex_channels = Fact<std::vector<std::string>>::missing("the snapshot does not list it");
  EXPECT_TRUE(run_rule("imex-channel-missing", n).skipped);
}

TEST(MnnvlFabricNotReady, FiresOnIncompleteStateOrZeroUuidOrNoClique) {
  NodeFacts n = healthy_gb200();
  n.gpus.value.gpus[1].fabric_state = "in-progress";
  RuleOutcome o = run_rule("mnnvl-fabric-not-ready", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("1 of 4 GPUs"), std::string::npos);
  n = healthy_gb200();
  n.gpus.value.gpus[0].fabric_cluster_uuid = std::string(32, '0');  // NCCL: no MNNVL fabric
  EXPECT_EQ(run_rule("mnnvl-fabric-not-ready", n).findings.size(), 1u);
  n = healthy_gb200();
  n.gpus.value.gpus[2].fabric_clique_id.reset();
  EXPECT_EQ(run_rule("mnnvl-fabric-not-ready", n).findings.size(), 1u);
}

TEST(MnnvlFabricNotReady, QuietWhenRegisteredOrNotMnnvl) {
  EXPECT_TRUE(run_rule("mnnvl-fabric-not-ready", healthy_gb200()).findings.empty());
  // ND H100 v5: NVSwitch inside the VM, a zero cluster UUID is normal; not this rule's size.
  RuleOutcome o = run_rule("mnnvl-fabric-not-ready", healthy_nd_h100());
  EXPECT_TRUE(o.findings.empty());
  EXPECT_FALSE(o.not_applicable.empty());
}
