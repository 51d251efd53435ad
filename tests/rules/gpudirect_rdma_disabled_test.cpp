#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(GpudirectRdmaDisabled, FiresWithoutPeermemOnTheProprietaryModule) {
  NodeFacts n = healthy_nd_h100();
  n.modules.value.modules.erase("nvidia_peermem");
  RuleOutcome o = run_rule("gpudirect-rdma-disabled", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].fix.find("modprobe nvidia_peermem"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("open GPU kernel module (this one is proprietary)"),
            std::string::npos);
}

// NVIDIA recommends DMA-BUF over nvidia-peermem: with the open module, Linux >= 5.12 and NCCL
// >= 2.13 a missing peermem is no problem (the old rule warned anyway), and the finding says
// which path GPUDirect RDMA takes.
TEST(GpudirectRdmaDisabled, DmabufPathWithoutPeermemIsOnlyInfo) {
  NodeFacts n = healthy_nd_h100();
  n.modules.value.modules.erase("nvidia_peermem");
  n.modules.value.nvidia_flavor = Fact<std::string>::present("open");
  RuleOutcome o = run_rule("gpudirect-rdma-disabled", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  EXPECT_NE(o.findings[0].message.find("will use DMA-BUF"), std::string::npos);
}

TEST(GpudirectRdmaDisabled, DmabufBlockedByOldKernelOrNcclOrTheEnvironment) {
  NodeFacts n = healthy_nd_h100();
  n.modules.value.modules.erase("nvidia_peermem");
  n.modules.value.nvidia_flavor = Fact<std::string>::present("open");
  n.host.value.kernel = "5.4.0-1046-azure";
  RuleOutcome o = run_rule("gpudirect-rdma-disabled", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].cause.find("Linux >= 5.12 (this is 5.4.0-1046-azure)"),
            std::string::npos);
  n.host.value.kernel = "6.8.0-1015-azure";
  n.nccl_version.value = "2.12.12";
  EXPECT_EQ(run_rule("gpudirect-rdma-disabled", n).findings.at(0).severity, Severity::kWarning);
  n.nccl_version.value = "2.21.5";
  n.nccl.value.env["NCCL_DMABUF_ENABLE"] = "0";
  EXPECT_EQ(run_rule("gpudirect-rdma-disabled", n).findings.at(0).severity, Severity::kWarning);
}

TEST(GpudirectRdmaDisabled, UnknownFlavorIsASkipNotAVerdict) {
  NodeFacts n = healthy_nd_h100();
  n.modules.value.modules.erase("nvidia_peermem");
  n.modules.value.nvidia_flavor = Fact<std::string>::missing("no /proc/driver/nvidia/version");
  RuleOutcome o = run_rule("gpudirect-rdma-disabled", n);
  EXPECT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("DMA-BUF"), std::string::npos);
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
