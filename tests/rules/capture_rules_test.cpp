// Issue 31 item 3: the rules over captured facts (slurm-node-unavailable, gpu-unreadable,
// dcgm-diag-failed, roce-link-down, roce-gid-missing), each firing on a real capture of
// tests/data/node-captures and quiet on a healthy one.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli/captures.h"
#include "parsers/dcgmi_diag.h"
#include "parsers/nvidia_smi_query.h"
#include "parsers/nvidia_smi_table.h"
#include "parsers/rdma_netdev.h"
#include "parsers/scontrol_node.h"
#include "parsers/sinfo_reasons.h"
#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

namespace {

std::string capture(const std::string& name) {
  std::ifstream in(std::string(TR_TEST_DATA) + "/node-captures/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

NodeFacts node() { return empty_capture_node("n1"); }

}  // namespace

TEST(SlurmNodeUnavailable, ExplainsGresCountLowerThanConfigured) {
  NodeFacts n = node();
  n.slurm = Fact<SlurmFacts>::present(
      parse_scontrol_nodes(capture("scontrol-show-node-gres-lower.txt"), "s.txt"));
  const RuleOutcome o = run_rule("slurm-node-unavailable", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("yigou-dev-102-68"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("IDLE+DRAIN"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("fewer GPUs"), std::string::npos);
  EXPECT_NE(o.findings[0].evidence[0].text.find("[slurm@2024-12-19T11:03:34]"), std::string::npos);
}

TEST(SlurmNodeUnavailable, SinfoListsEveryNodeAndSaysTheReasonIsCut) {
  NodeFacts n = node();
  n.slurm = Fact<SlurmFacts>::present(parse_sinfo_reasons(capture("sinfo-R-unige-gres.txt"), "r"));
  const RuleOutcome o = run_rule("slurm-node-unavailable", n);
  ASSERT_EQ(o.findings.size(), 10u);  // one per row: 49 nodes
  const Finding& gpu004 = o.findings[5];
  EXPECT_NE(
      gpu004.message.find("Slurm nodes gpu004, gpu005, gpu006, gpu007, gpu008 and 1 more (6)"),
      std::string::npos)
      << gpu004.message;
  EXPECT_NE(gpu004.cause.find("socket"), std::string::npos);  // SchedMD 22498
  EXPECT_NE(gpu004.fix.find("20 characters"), std::string::npos);
  // "gres/gpu count repor" is what sinfo left of "gres/gpu count reported lower than ...".
  EXPECT_NE(o.findings[4].message.find("gpu002"), std::string::npos);
  EXPECT_NE(o.findings[4].cause.find("fewer GPUs"), std::string::npos);
  n.slurm =
      Fact<SlurmFacts>::present(parse_sinfo_reasons(capture("sinfo-R-kill-task-failed.txt"), "k"));
  const RuleOutcome k = run_rule("slurm-node-unavailable", n);
  ASSERT_EQ(k.findings.size(), 1u);
  EXPECT_NE(k.findings[0].cause.find("UnkillableStepTimeout"), std::string::npos);
}

TEST(SlurmNodeUnavailable, NhcAndNotRespondingReasons) {
  NodeFacts n = node();
  n.slurm = Fact<SlurmFacts>::present(parse_scontrol_nodes(
      "NodeName=gpu1 State=IDLE+DRAIN Reason=NHC: check_gpu_count: Expected to see 8 but found "
      "7. FaultCode: NHC2009 [root@2025-01-01T00:00:00]\n"
      "NodeName=gpu2 State=DOWN+NOT_RESPONDING Reason=Not responding [slurm@2026-09-12T15:02:40]\n"
      "NodeName=gpu3 State=IDLE+DRAIN Reason=NHC: check_hw_ib:  No IB port mlx5_0:1 is ACTIVE "
      "(LinkUp 400 Gb/sec). [root@2025-01-01T00:00:00]\n",
      "s"));
  const RuleOutcome o = run_rule("slurm-node-unavailable", n);
  ASSERT_EQ(o.findings.size(), 3u);
  EXPECT_NE(o.findings[0].cause.find("NHC2009"), std::string::npos);
  EXPECT_NE(o.findings[1].cause.find("SlurmdTimeout"), std::string::npos);
  EXPECT_NE(o.findings[2].cause.find("InfiniBand"), std::string::npos);
}

TEST(SlurmNodeUnavailable, QuietOnIdleNodesAndAnEmptyReasonList) {
  NodeFacts n = node();
  n.slurm = Fact<SlurmFacts>::present(
      parse_scontrol_nodes(capture("scontrol-show-nodes-slinky.txt"), "s"));
  EXPECT_TRUE(run_rule("slurm-node-unavailable", n).findings.empty());
  n.slurm = Fact<SlurmFacts>::present(parse_sinfo_reasons(capture("sinfo-R-empty.txt"), "e"));
  EXPECT_TRUE(run_rule("slurm-node-unavailable", n).findings.empty());
  EXPECT_FALSE(run_rule("slurm-node-unavailable", node()).not_applicable.empty());
}

TEST(GpuUnreadable, FiresOnErrFieldsAndLostGpus) {
  NodeFacts n = node();
  n.gpus = Fact<GpuFacts>::present(parse_nvidia_smi_table(capture("nvidia-smi-a40-err.txt"), "t"));
  RuleOutcome o = run_rule("gpu-unreadable", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("00000000:83:00.0"), std::string::npos);
  n.gpus = Fact<GpuFacts>::present(parse_nvidia_smi_table(capture("nvidia-smi-gpu-lost.txt"), "l"));
  o = run_rule("gpu-unreadable", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].evidence[0].text.find("GPU is lost"), std::string::npos);
}

TEST(GpuUnreadable, QuietOnHealthyTable) {
  NodeFacts n = node();
  n.gpus =
      Fact<GpuFacts>::present(parse_nvidia_smi_table(capture("nvidia-smi-a100-8gpu.txt"), "t"));
  EXPECT_TRUE(run_rule("gpu-unreadable", n).findings.empty());
}

TEST(NvidiaSmiQueryFeedsExistingRules, RemapPendingIsAMemoryErrorFinding) {
  NodeFacts n = node();
  n.gpus = Fact<GpuFacts>::present(
      parse_nvidia_smi_query(capture("nvidia-smi-q-a100-remap-pending.txt"), "q"));
  const RuleOutcome o = run_rule("gpu-memory-errors", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("pending"), std::string::npos);
}

TEST(DcgmDiagFailed, FailAllWithItsWarning) {
  NodeFacts n = node();
  n.dcgm_diag = Fact<DcgmDiagFacts>::present(
      parse_dcgmi_diag(capture("dcgmi-diag-3.3.0-pcie-fail-all.txt"), "d"));
  const RuleOutcome o = run_rule("dcgm-diag-failed", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("PCIe (Integration) failed"), std::string::npos);
  EXPECT_NE(o.findings[0].evidence[1].text.find("cuda driver combination"), std::string::npos);
  // The CUDA runtime does not match the driver: not a PCIe fault.
  EXPECT_NE(o.findings[0].cause.find("CUDA runtime"), std::string::npos);
  ASSERT_EQ(o.notes.size(), 1u);  // GPU Memory: Skip - All
}

TEST(DcgmDiagFailed, AnInternalErrorIsNotBlamedOnTheGpu) {
  NodeFacts n = node();
  n.dcgm_diag = Fact<DcgmDiagFacts>::present(
      parse_dcgmi_diag(capture("dcgmi-diag-4.2.3-pcie-internal-error.txt"), "d"));
  const RuleOutcome o = run_rule("dcgm-diag-failed", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("diagnostic itself broke"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("Do not return the GPU"), std::string::npos);
}

TEST(DcgmDiagFailed, QuietWhenAllPass) {
  NodeFacts n = node();
  n.dcgm_diag =
      Fact<DcgmDiagFacts>::present(parse_dcgmi_diag(capture("dcgmi-diag-4.0.0-r3-pass.txt"), "d"));
  const RuleOutcome o = run_rule("dcgm-diag-failed", n);
  EXPECT_TRUE(o.findings.empty());
  EXPECT_TRUE(o.notes.empty());
}

TEST(RoceLinkDown, EthernetPortsDownFireIpoibDoNot) {
  NodeFacts n = node();
  RdmaNetFacts net;
  net.links = parse_ibdev2netdev(capture("ibdev2netdev-imbue-h100.txt"), "i");
  n.rdma_net = Fact<RdmaNetFacts>::present(net);
  const RuleOutcome o = run_rule("roce-link-down", n);
  // mlx5_2 (enp27s0f1np1) and mlx5_8 (enp157s0f1np1) are Ethernet and Down; the eight
  // IPoIB netdevs Down are InfiniBand ports, not judged here.
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_NE(o.findings[0].message.find("mlx5_2/1 (enp27s0f1np1)"), std::string::npos);
  // Each is the second port of a card whose first port (enp27s0f0np0, enp157s0f0np0) is Up.
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].cause.find("unused second port"), std::string::npos);
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("8 IPoIB"), std::string::npos);
}

TEST(RoceLinkDown, LinkLayerFromAnIbCaptureDecides) {
  NodeFacts n = node();
  RdmaNetFacts net;
  // An IB VF's child netdev in a pod (sriov-network-operator#382): "net1" says nothing.
  net.links = parse_ibdev2netdev(capture("ibdev2netdev-sriov-pod.txt"), "p");
  n.rdma_net = Fact<RdmaNetFacts>::present(net);
  RuleOutcome o = run_rule("roce-link-down", n);
  EXPECT_TRUE(o.findings.empty());
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("link layer unknown"), std::string::npos);
  for (const char* layer : {"InfiniBand", "Ethernet"}) {
    IbFacts ib;
    IbDevice d;
    d.name = "mlx5_3";
    IbPort p;
    p.number = 1;
    p.link_layer = Fact<std::string>::present(layer);
    d.ports.push_back(p);
    ib.devices.push_back(d);
    n.ib = Fact<IbFacts>::present(ib);
    EXPECT_EQ(run_rule("roce-link-down", n).findings.size(), layer[0] == 'E' ? 1u : 0u) << layer;
  }
}

TEST(RoceLinkDown, ABondDownIsAnError) {
  NodeFacts n = node();
  RdmaNetFacts net;
  net.links = parse_ibdev2netdev("mlx5_bond_0 port 1 ==> bond0 (Down)\n", "b");
  n.rdma_net = Fact<RdmaNetFacts>::present(net);
  const RuleOutcome o = run_rule("roce-link-down", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].fix.find("/proc/net/bonding/bond0"), std::string::npos);
}

TEST(RoceLinkDown, QuietWhenUp) {
  NodeFacts n = node();
  RdmaNetFacts net;
  net.links = parse_ibdev2netdev("mlx5_bond_0 port 1 ==> bond0 (Up)\n", "b");
  n.rdma_net = Fact<RdmaNetFacts>::present(net);
  EXPECT_TRUE(run_rule("roce-link-down", n).findings.empty());
}

TEST(RoceGidMissing, BondWithoutAnIpFires) {
  NodeFacts n = node();
  RdmaNetFacts net;
  net.gids = parse_show_gids(capture("show_gids-bond-no-ip.txt"), "g");
  n.rdma_net = Fact<RdmaNetFacts>::present(net);
  const RuleOutcome o = run_rule("roce-gid-missing", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("mlx5_bond_0/1 (bond1)"), std::string::npos);
}

TEST(RoceGidMissing, QuietWithAnIpv4MappedV2Gid) {
  for (const char* f : {"show_gids-bond.txt", "show_gids-rdma0.txt"}) {
    NodeFacts n = node();
    RdmaNetFacts net;
    net.gids = parse_show_gids(capture(f), f);
    n.rdma_net = Fact<RdmaNetFacts>::present(net);
    EXPECT_TRUE(run_rule("roce-gid-missing", n).findings.empty()) << f;
  }
}

TEST(SlurmNodeUnavailable, GresAgainstTheGpusNvidiaSmiCanUse) {
  NodeFacts n = node();
  n.slurm = Fact<SlurmFacts>::present(
      parse_scontrol_nodes("NodeName=gpu4 Gres=gpu:8 State=IDLE CfgTRES=cpu=96,gres/gpu=8\n", "s"));
  n.gpus = Fact<GpuFacts>::present(parse_nvidia_smi_table(capture("nvidia-smi-a40-err.txt"), "t"));
  RuleOutcome o = run_rule("slurm-node-unavailable", n);
  ASSERT_EQ(o.findings.size(), 1u);  // GPU 4 reads ERR!: 7 of 8 usable
  EXPECT_NE(o.findings[0].message.find("declares 8 GPU(s) (Gres=gpu:8), nvidia-smi can use 7"),
            std::string::npos)
      << o.findings[0].message;
  n.gpus =
      Fact<GpuFacts>::present(parse_nvidia_smi_table(capture("nvidia-smi-a100-8gpu.txt"), "t"));
  EXPECT_TRUE(run_rule("slurm-node-unavailable", n).findings.empty());
}
