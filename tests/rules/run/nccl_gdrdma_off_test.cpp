#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-gdrdma-off";

TEST(NcclGdrdmaOff, FiresWithNoModule) {
  RuleOutcome o = log_rule(kId, log_synthetic("gdr-no-module.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("nvidia-peermem"), std::string::npos);
  EXPECT_EQ(o.findings[0].subsumes, std::vector<std::string>{"gpudirect-rdma-disabled"});
}

TEST(NcclGdrdmaOff, FiresOnOmniPathWithoutGdr) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/bigscience-jz-16node-v100-netib-hfi1-nccl2.7.8.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("368"), std::string::npos);
}

// EFA through aws-ofi-nccl without GPUDirect RDMA: the hardware on p3dn.24xlarge, never a
// missing nvidia-peermem (the EFA driver pins GPU memory itself).
TEST(NcclGdrdmaOff, EfaWithoutGdrIsThePlatformNotPeermem) {
  RuleOutcome o = log_rule(kId, log_synthetic("p3dn-efa-no-gdr-2node.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_NE(x.cause.find("p3dn.24xlarge"), std::string::npos);
  EXPECT_NE(x.cause.find("nvidia-peermem is not the missing piece"), std::string::npos);
  EXPECT_EQ(x.fix.find("modprobe"), std::string::npos);
  EXPECT_EQ(x.fix.find("lsmod"), std::string::npos);
  bool plugin_line = false;
  for (const auto& e : x.evidence)
    plugin_line = plugin_line || e.text.find("disabling GDR") != std::string::npos;
  EXPECT_TRUE(plugin_line);
  // EFA with GPUDirect RDMA (p4de, NVIDIA/nccl#1176) stays quiet.
  EXPECT_TRUE(
      log_rule(kId, log_fixture("nccl-debug/nccl1176-aws-p4de-bootstrap-truncated-nccl2.19.3.log"))
          .findings.empty());
}

// aws-ofi-nccl 1.16 and later say at INFO that they set NCCL_PROTO=simple for want of GPUDirect
// RDMA (nccl_ofi_net.cpp:405-409, :965 @ v1.21.1): quoted as the plugin's own evidence, and read
// by the knowledge base so nccl-warnings does not quote it back as unexplained.
TEST(NcclGdrdmaOff, EfaQuotesThePluginsForcedSimpleProtocolLine) {
  const std::string log =
      "ip-10-0-1-11:5101:5140 [0] NCCL INFO NET/OFI Need to force simple protocol: GDR not "
      "supported\n"
      "ip-10-0-1-11:5101:5140 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/AWS "
      "Libfabric/0\n"
      "ip-10-0-1-12:6101:6140 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/AWS "
      "Libfabric/0\n";
  const NcclRunFacts f = log_text(log);
  RuleOutcome o = log_rule(kId, f);
  ASSERT_EQ(o.findings.size(), 1u);
  bool plugin_line = false;
  for (const auto& e : o.findings[0].evidence)
    plugin_line = plugin_line || e.text.find("GDR not supported") != std::string::npos;
  EXPECT_TRUE(plugin_line);
  EXPECT_TRUE(log_rule("nccl-warnings", f).findings.empty());
  // The other reason the plugin gives (platform-aws.cpp:926) is not about GPUDirect RDMA.
  const NcclRunFacts g = log_text(
      "ip-10-0-1-11:5101:5140 [0] NCCL INFO NET/OFI Need to force simple protocol: byte "
      "delivery ordering not supported\n"
      "ip-10-0-1-11:5101:5140 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/AWS "
      "Libfabric/0/GDRDMA\n"
      "ip-10-0-1-12:6101:6140 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/AWS "
      "Libfabric/0/GDRDMA\n");
  EXPECT_TRUE(log_rule(kId, g).findings.empty());
}

TEST(NcclGdrdmaOff, QuietWhenEveryConnectionUsesGdrdma) {
  EXPECT_TRUE(log_rule(kId, log_synthetic("azure-ndv5-gdrdma-2node.log")).findings.empty());
  EXPECT_TRUE(
      log_rule(kId, log_fixture(
                        "nccl-debug/"
                        "nccltests350-2node-a100pcie-roce-ib-gdrdma-gather-dropoff-nccl2.16.5.log"))
          .findings.empty());
}

TEST(NcclGdrdmaOff, QuietOnSingleNodeP2p) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log"));
  EXPECT_FALSE(o.skipped);
  EXPECT_TRUE(o.findings.empty());
}

TEST(NcclGdrdmaOff, DisabledForHcaIsAFindingOnItsOwnWithTheVersionsCause) {
  RuleOutcome o = log_rule(
      kId, log_fixture("nccl-debug/nccl1676-dgxos-gdr-disabled-nvidia-peermem-nccl2.22.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("mlx5_0"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("2.23.4"), std::string::npos);
}

// RCCL checks AMD's peer-memory interface (memory_peers/amdkfd, ib_register_peer_memory_client)
// or DMA-BUF; advice about nvidia-peermem would send an AMD user the wrong way.
TEST(NcclGdrdmaOff, AnRcclRunWithoutGdrGetsAmdsPeerMemoryPath) {
  const std::string rccl = "mi300-0:1:1 [0] NCCL INFO RCCL version : 2.20.5-HEAD:d380693\n";
  const std::string hca =
      "mi300-0:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 "
      "'mlx5_0' (no module)\n";
  const std::string conn =
      "mi300-0:1:2 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [receive] via NET/IB/0\n"
      "mi300-1:2:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [receive] via NET/IB/0\n";
  for (const std::string& log : {rccl + hca, rccl + hca + conn}) {
    RuleOutcome o = log_rule(kId, log_text(log));
    ASSERT_EQ(o.findings.size(), 1u) << log;
    const Finding& x = o.findings[0];
    EXPECT_NE(x.cause.find("memory_peers/amdkfd"), std::string::npos) << x.cause;
    EXPECT_EQ(x.fix.find("nvidia-peermem"), std::string::npos) << x.fix;
  }
  // The same lines from NCCL keep NVIDIA's reading.
  RuleOutcome n = log_rule(kId, log_text(hca + conn));
  ASSERT_EQ(n.findings.size(), 1u);
  EXPECT_NE(n.findings[0].cause.find("nvidia-peermem"), std::string::npos);
}

// Before 2.5 "GPU Direct RDMA Disabled for GPU ... (not supported by GPU)" is the peer-memory
// check's failure, a missing module included (src/transport/net_ib.cu:226 @ v2.3.7-1, whose
// ncclIbGdrSupport returns ncclSystemError, never the 1 that would print "no module"), and
// 2.4.8's "(no module or not supported by GPU)" the same: no PCI distance (horovod#1651).
TEST(NcclGdrdmaOff, Pre25PeerMemoryFailureIsNotTheDistance) {
  const std::string conn =
      "ta1-1:2712:2824 [0] NCCL INFO Ring 00 : 0 -> 1 via NET/IB/0\n"
      "ta1-0:2668:2780 [0] NCCL INFO Ring 00 : 1 -> 0 via NET/IB/0\n";
  for (const std::string& line :
       {std::string("ta1-0:2668:2780 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 0 / "
                    "HCA mlx4_0 (not supported by GPU)\n"),
        std::string("ta1-0:2668:2780 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU "
                    "0[0] / HCA 0 'mlx5_0' (no module or not supported by GPU)\n")}) {
    const RuleOutcome o = log_rule(kId, log_text(line + conn));
    ASSERT_EQ(o.findings.size(), 1u) << line;
    const Finding& x = o.findings[0];
    EXPECT_NE(x.cause.find("nvidia-peermem"), std::string::npos) << x.cause;
    EXPECT_EQ(x.cause.find("PCI topology"), std::string::npos) << x.cause;
    EXPECT_EQ(x.fix.find("NCCL_TOPO_FILE"), std::string::npos) << x.fix;
  }
  // The distance form stays the distance reading.
  const RuleOutcome d = log_rule(
      kId, log_text("ta1-0:2668:2780 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 0 / "
                    "HCA mlx4_0 (distance 4 >= 2)\n" +
                    conn));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_NE(d.findings[0].cause.find("PCI topology"), std::string::npos) << d.findings[0].cause;
}

TEST(NcclGdrdmaOff, DisabledForHcaOnASingleNodeRunIsNoInterNodeAdvice) {
  EXPECT_TRUE(
      log_rule(
          kId,
          log_fixture("nccl-debug/timezzx-1node-2xa100pcie-nvlink-roce-nccl2.27.7-subsys-all.log"))
          .findings.empty());
}

// NCCL reads GPU memory for sends only where NCCL_NET_GDR_READ allows it (by default a GPU
// with NVLink, or from 2.19.1 compute capability 8.0+): a V100 without NVLink receives with
// GPUDirect RDMA and sends through host memory, a note, not a warning.
TEST(NcclGdrdmaOff, SendsWithoutGdrBesideGdrReceivesAreTheReadPolicyNote) {
  NcclRunFacts f =
      log_fixture("nccl-debug/nccltests36-azure-nc24rsv3-2node-gdr-read-off-sends-nccl2.5.log");
  ASSERT_EQ(f.transports.count("NET/IB"), 1u);
  EXPECT_EQ(f.transports.at("NET/IB").sends, 1u);
  EXPECT_EQ(f.transports.at("NET/IB/GDRDMA").receives, 2u);
  RuleOutcome o = log_rule(kId, f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  EXPECT_NE(o.findings[0].cause.find("NCCL_NET_GDR_READ"), std::string::npos);
  EXPECT_EQ(o.findings[0].message.find("disagree"), std::string::npos);
}

// A receive without GPUDirect RDMA is no read policy: the warning stays.
TEST(NcclGdrdmaOff, AReceiveWithoutGdrStaysAWarning) {
  const std::string head =
      "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [receive] via NET/IB/0/GDRDMA\n"
      "b:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0\n";
  RuleOutcome policy = log_rule(kId, log_text(head));
  ASSERT_EQ(policy.findings.size(), 1u);
  EXPECT_EQ(policy.findings[0].severity, Severity::kInfo);
  RuleOutcome o = log_rule(
      kId,
      log_text(head + "b:1:2 [0] NCCL INFO Channel 01/0 : 1[0] -> 0[0] [receive] via NET/IB/0\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
}

// 2.4-2.5 print the distance reading behind "NET/IB : " (Mellanox/nv_peer_memory#56): it is the
// cause, not a missing module.
TEST(NcclGdrdmaOff, TheDistanceReadingOf24And25IsTheCause) {
  const std::string log =
      "m:1:2 [2] NCCL INFO NET/IB : GPU Direct RDMA Disabled for GPU 2[2] / HCA 0 (distance 3 >= "
      "2)\n"
      "m:1:2 [2] NCCL INFO Ring 00 : 6 -> 2 [receive] via NET/IB/0\n"
      "s:1:2 [2] NCCL INFO Ring 00 : 6 -> 2 [send] via NET/IB/0\n";
  NcclRunFacts f = log_text(log);
  ASSERT_TRUE(f.gdr_disabled_by_distance.has_value());
  RuleOutcome o = log_rule(kId, f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("too far apart"), std::string::npos) << o.findings[0].cause;
}

// NVIDIA/nccl#1519: Google's FastSocket plugin reports every NIC "GPU Direct RDMA Disabled"
// (graph/topo.cc prints it for any network; FastSocket's ptrSupport is NCCL_PTR_HOST): a socket
// transport has no GPUDirect RDMA to turn on, so no peer-memory advice.
TEST(NcclGdrdmaOff, ASocketPluginsDisabledLinesAreNoFinding) {
  const NcclRunFacts f =
      log_fixture("nccl-debug/nccl1519-gcp-h100-fastsocket-gdr-disabled-excerpt.log");
  ASSERT_EQ(f.net_devices.size(), 8u);
  EXPECT_EQ(f.net_devices[0].net, "FastSocket");
  const RuleOutcome o = log_rule(kId, f);
  EXPECT_TRUE(o.findings.empty());
  ASSERT_FALSE(o.not_applicable.empty());
  EXPECT_NE(o.not_applicable.find("host memory by design"), std::string::npos);
  // Its connections across hosts: no GDRDMA by design either.
  const RuleOutcome conn = log_rule(
      kId, log_text("a:1:2 [0] NCCL INFO NET/FastSocket : GPU Direct RDMA Disabled for HCA 0 "
                    "'eth0'\n"
                    "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/FastSocket/0\n"
                    "b:3:4 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [receive] via "
                    "NET/FastSocket/0\n"));
  EXPECT_TRUE(conn.findings.empty());
  // The same line from NET/IB beside it still is one.
  const RuleOutcome ib = log_rule(
      kId, log_text("a:1:2 [0] NCCL INFO NET/FastSocket : GPU Direct RDMA Disabled for HCA 0 "
                    "'eth0'\n"
                    "a:1:2 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n"));
  ASSERT_EQ(ib.findings.size(), 1u);
  EXPECT_NE(ib.findings[0].message.find("mlx5_0"), std::string::npos);
  EXPECT_EQ(ib.findings[0].message.find("eth0"), std::string::npos);
}

}  // namespace
}  // namespace trainready::test
