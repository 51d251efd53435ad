// Issue 31 item 3: the captures people post (tests/data/node-captures, SOURCES.md) read into
// typed facts; garbage is an InputError naming the line, never a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "cli/captures.h"
#include "core/input_error.h"
#include "parsers/dcgmi_diag.h"
#include "parsers/ib_captures.h"
#include "parsers/nvidia_bug_report.h"
#include "parsers/nvidia_smi_query.h"
#include "parsers/nvidia_smi_table.h"
#include "parsers/rdma_netdev.h"
#include "parsers/scontrol_node.h"
#include "parsers/sinfo_reasons.h"
#include "parsers/slurm_hostlist.h"
#include "queries/rdma_link_guess.h"

using namespace trainready;

namespace {

std::string capture(const std::string& name) {
  std::ifstream in(std::string(TR_TEST_DATA) + "/node-captures/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int error_line(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.line();
  }
  return -1;
}

}  // namespace

TEST(SlurmHostlist, ExpandsRangesListsAndPadding) {
  EXPECT_EQ(expand_hostlist("gpu[004-006]", "t", 1),
            (std::vector<std::string>{"gpu004", "gpu005", "gpu006"}));
  EXPECT_EQ(expand_hostlist("node[01-02,07],login1", "t", 1),
            (std::vector<std::string>{"node01", "node02", "node07", "login1"}));
  EXPECT_EQ(expand_hostlist("a[1-2]b[3-4]", "t", 1),
            (std::vector<std::string>{"a1b3", "a1b4", "a2b3", "a2b4"}));
  EXPECT_EQ(expand_hostlist("ip-10-0-1-23", "t", 1), (std::vector<std::string>{"ip-10-0-1-23"}));
}

TEST(SlurmHostlist, GarbageAndBombsAreInputErrors) {
  for (const char* bad :
       {"n[1-", "n]1[", "n[3-1]", "n[a-b]", "n[[1-2]]", "n[1-99999999]", "a[1-1000]b[1-1000]"})
    EXPECT_EQ(error_line([&] { expand_hostlist(bad, "t", 7); }), 7) << bad;
}

TEST(ScontrolNodes, GresReportedLowerThanConfigured) {
  const SlurmFacts f = parse_scontrol_nodes(capture("scontrol-show-node-gres-lower.txt"), "s");
  ASSERT_EQ(f.nodes.size(), 1u);
  const SlurmNodeRecord& n = f.nodes[0];
  EXPECT_EQ(n.name, "yigou-dev-102-68");
  EXPECT_EQ(n.state, "IDLE+DRAIN");
  EXPECT_EQ(n.reason, "gres/gpu count reported lower than configured (0 < 1)");
  EXPECT_EQ(n.reason_user, "slurm");
  EXPECT_EQ(n.reason_time, "2024-12-19T11:03:34");
  EXPECT_EQ(n.gres, "gpu:nvidia-rtx-3090:1");
  EXPECT_EQ(n.gres_gpus, 1);
  EXPECT_EQ(n.cfg_gpus, 1);
  EXPECT_EQ(n.where.line, 1);
}

TEST(ScontrolNodes, SeveralRecordsAndTheExistingCorpus) {
  const SlurmFacts f = parse_scontrol_nodes(capture("scontrol-show-nodes-slinky.txt"), "s");
  ASSERT_EQ(f.nodes.size(), 1u);
  EXPECT_EQ(f.nodes[0].gres_gpus, 1);  // "gpu:a40:1(S:0,2,4,6,8,10)": the socket list is not GPUs
  EXPECT_EQ(f.nodes[0].state, "IDLE+DYNAMIC_NORM");
  std::ifstream in(std::string(TR_TEST_DATA) + "/slurm/scontrol-show-node-drained-admin.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  const SlurmFacts g = parse_scontrol_nodes(ss.str(), "d");
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].reason, "admin: replace fan, ticket 4711");
  const SlurmFacts two = parse_scontrol_nodes(
      "NodeName=a State=IDLE\nNodeName=b State=DOWN* Reason=x [root@t]\n", "t");
  ASSERT_EQ(two.nodes.size(), 2u);
  EXPECT_EQ(two.nodes[1].where.line, 2);
  EXPECT_EQ(two.nodes[1].reason, "x");
}

TEST(ScontrolNodes, GarbageIsAnInputError) {
  EXPECT_EQ(error_line([] { parse_scontrol_nodes("hello\n", "t"); }), 1);
  EXPECT_EQ(error_line([] { parse_scontrol_nodes("\nNodeName=a Arch=x\n", "t"); }), 2);
  EXPECT_EQ(gres_gpu_count("(null)"), std::nullopt);
  EXPECT_EQ(gres_gpu_count("gpu:a100:4,gpu:h100:2,shard:8"), 6);
  EXPECT_EQ(tres_gpu_count("cpu=8,mem=1M,billing=8,gres/gpu=8"), 8);
}

TEST(SinfoReasons, ExpandsHostlistsAndMarksCutReasons) {
  const SlurmFacts f = parse_sinfo_reasons(capture("sinfo-R-unige-gres.txt"), "s");
  // 3 cpu + gpu030 + gpu002 + 6 + gpu010 + gpu011 + (5+6+11+4) + (3+3+3+1) = 49
  ASSERT_EQ(f.nodes.size(), 49u);
  EXPECT_EQ(f.nodes[0].name, "cpu242");
  EXPECT_EQ(f.nodes[0].reason, "issue-5894");
  EXPECT_FALSE(f.nodes[0].reason_truncated);
  EXPECT_EQ(f.nodes[5].name, "gpu004");
  EXPECT_EQ(f.nodes[5].reason, "gres/gpu GRES core s");
  EXPECT_TRUE(f.nodes[5].reason_truncated);
  EXPECT_EQ(f.nodes[5].reason_user, "slurm");
  EXPECT_EQ(f.nodes[5].where.line, 7);
  EXPECT_EQ(f.nodes.back().name, "gpu045");
}

TEST(SinfoReasons, HeaderlessPasteAndEmptyList) {
  const SlurmFacts f = parse_sinfo_reasons(capture("sinfo-R-kill-task-failed.txt"), "s");
  ASSERT_EQ(f.nodes.size(), 1u);
  EXPECT_EQ(f.nodes[0].reason, "Kill task failed");
  EXPECT_EQ(f.nodes[0].name, "ip-10-0-1-23");
  EXPECT_TRUE(parse_sinfo_reasons(capture("sinfo-R-empty.txt"), "s").nodes.empty());
  EXPECT_TRUE(looks_like_sinfo_reasons(capture("sinfo-R-kill-task-failed.txt")));
  EXPECT_EQ(error_line([] { parse_sinfo_reasons("REASON USER TIMESTAMP NODELIST\nshort\n", "t"); }),
            2);
  EXPECT_EQ(error_line([] { parse_sinfo_reasons("garbage here\n", "t"); }), 1);
}

TEST(NvidiaSmiTable, ReadsEightA100s) {
  const GpuFacts g = parse_nvidia_smi_table(capture("nvidia-smi-a100-8gpu.txt"), "t");
  EXPECT_TRUE(g.driver_loaded);
  EXPECT_EQ(g.driver_version, "470.141.03");
  EXPECT_EQ(g.cuda_version, "11.4");
  ASSERT_EQ(g.gpus.size(), 8u);
  EXPECT_EQ(g.gpus[7].pci_bus_id, "00000000:CF:00.0");
  EXPECT_EQ(g.gpus[0].name, "NVIDIA A100-SXM...");
  EXPECT_EQ(g.gpus[0].persistence_mode, true);
  EXPECT_EQ(g.gpus[0].mig_mode, "Disabled");
  EXPECT_EQ(g.gpus[0].ecc_uncorrected_volatile, 0u);
  EXPECT_EQ(g.gpus[0].memory_total_bytes, 81251ull * 1024 * 1024);
  for (const Gpu& gpu : g.gpus) EXPECT_TRUE(gpu.unreadable_fields.empty());
}

TEST(NvidiaSmiTable, KeepsTheErrFieldsOfAGpuThatStoppedAnswering) {
  const GpuFacts g = parse_nvidia_smi_table(capture("nvidia-smi-a40-err.txt"), "t");
  ASSERT_EQ(g.gpus.size(), 8u);
  EXPECT_EQ(g.gpus[4].name, "ERR!");
  EXPECT_EQ(g.gpus[4].pci_bus_id, "00000000:83:00.0");
  EXPECT_GE(g.gpus[4].unreadable_fields.size(), 3u);
  EXPECT_EQ(g.gpus[4].where.line, 25);
  EXPECT_TRUE(g.gpus[3].unreadable_fields.empty());
}

TEST(NvidiaSmi, LostGpuMessagesInBothForms) {
  for (const char* f : {"nvidia-smi-unknown-error.txt", "nvidia-smi-gpu-lost.txt"}) {
    for (int form = 0; form < 2; ++form) {
      const GpuFacts g =
          form == 0 ? parse_nvidia_smi_table(capture(f), f) : parse_nvidia_smi_query(capture(f), f);
      ASSERT_EQ(g.lost.size(), 1u) << f;
      EXPECT_EQ(g.lost[0].where.line, 1);
    }
  }
  EXPECT_EQ(parse_nvidia_smi_table(capture("nvidia-smi-gpu-lost.txt"), "t").lost[0].pci,
            "0000:02:00.0");
  const GpuFacts none = parse_nvidia_smi_table(
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
      "that the latest NVIDIA driver is installed and running.\n",
      "t");
  EXPECT_FALSE(none.driver_loaded);
  EXPECT_EQ(error_line([] { parse_nvidia_smi_table("| a | b |\n", "t"); }), 1);
}

TEST(NvidiaSmiQuery, RemapPendingFromAPasteWithoutItsBanner) {
  const std::string text = capture("nvidia-smi-q-a100-remap-pending.txt");
  EXPECT_TRUE(looks_like_nvidia_smi_query(text));
  const GpuFacts g = parse_nvidia_smi_query(text, "q");
  EXPECT_EQ(g.driver_version, "510.73.08");
  EXPECT_EQ(g.cuda_version, "11.6");
  ASSERT_EQ(g.gpus.size(), 1u);
  EXPECT_EQ(g.gpus[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(g.gpus[0].pci_bus_id, "00000000:10:1C.0");
  EXPECT_EQ(g.gpus[0].remap_pending, true);
  EXPECT_EQ(g.gpus[0].remap_failure, false);
  EXPECT_EQ(g.gpus[0].ecc_uncorrected_volatile, 0u);          // SRAM + DRAM Uncorrectable, Volatile
  EXPECT_FALSE(g.gpus[0].retired_pages_pending.has_value());  // N/A
}

TEST(NvidiaSmiQuery, ClocksReasonsPersistenceMigAndUnknownError) {
  const std::string text =
      "==============NVSMI LOG==============\n\n"
      "Driver Version                            : 550.54.15\n"
      "CUDA Version                              : 12.4\n\n"
      "Attached GPUs                             : 1\n"
      "GPU 00000000:18:00.0\n"
      "    Product Name                          : NVIDIA H100 80GB HBM3\n"
      "    Persistence Mode                      : Disabled\n"
      "    MIG Mode\n"
      "        Current                           : Enabled\n"
      "        Pending                           : Enabled\n"
      "    Clocks Event Reasons\n"
      "        Idle                              : Not Active\n"
      "        HW Slowdown                       : Active\n"
      "            HW Thermal Slowdown           : Active\n"
      "            HW Power Brake Slowdown       : Not Active\n"
      "    ECC Errors\n"
      "        Volatile\n"
      "            SRAM Uncorrectable Parity     : 1\n"
      "            SRAM Uncorrectable SEC-DED    : 0\n"
      "            DRAM Uncorrectable            : 2\n"
      "        Aggregate\n"
      "            DRAM Uncorrectable            : 9\n"
      "    Temperature\n"
      "        GPU Current Temp                  : Unknown Error\n";
  const GpuFacts g = parse_nvidia_smi_query(text, "q");
  ASSERT_EQ(g.gpus.size(), 1u);
  EXPECT_EQ(g.gpus[0].persistence_mode, false);
  EXPECT_EQ(g.gpus[0].mig_mode, "Enabled");
  EXPECT_EQ(g.gpus[0].clocks_event_reasons, 0x8u | 0x40u);
  EXPECT_EQ(g.gpus[0].ecc_uncorrected_volatile, 3u);
  ASSERT_EQ(g.gpus[0].unreadable_fields.size(), 1u);
  EXPECT_EQ(g.gpus[0].unreadable_fields[0], "Temperature / GPU Current Temp: Unknown Error");
  EXPECT_EQ(error_line([] { parse_nvidia_smi_query("GPU0 X SYS\n", "t"); }), 1);
}

TEST(Ibdev2netdev, PlainPaddedCommentedAndVerbose) {
  const auto links = parse_ibdev2netdev(capture("ibdev2netdev-imbue-h100.txt"), "i");
  ASSERT_EQ(links.size(), 12u);
  EXPECT_EQ(links[1].device, "mlx5_1");
  EXPECT_EQ(links[1].netdev, "enp27s0f0np0");
  EXPECT_TRUE(links[1].up);
  EXPECT_FALSE(links[0].up);
  EXPECT_EQ(links[0].port, 1);
  const auto v = parse_ibdev2netdev(
      "0000:1a:00.0 mlx5_0 (MT4123 - MCX653105A-HDAT) CX653105A fw 20.28.1002 port 1 (ACTIVE) "
      "==> ib0 (Up)\n",
      "v");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].device, "mlx5_0");
  EXPECT_EQ(v[0].netdev, "ib0");
  EXPECT_EQ(link_by_name("mlx5_bond_0", "bond0"), RdmaLinkGuess::kRoce);
  EXPECT_EQ(link_by_name("mlx5_1", "enp27s0f0np0"), RdmaLinkGuess::kRoce);
  EXPECT_EQ(link_by_name("mlx5_0", "ibp26s0"), RdmaLinkGuess::kInfiniband);
  EXPECT_EQ(link_by_name("mlx5_3", "net1"), RdmaLinkGuess::kUnknown);
  EXPECT_EQ(error_line([] { parse_ibdev2netdev("mlx5_0 port 1 ==> ib0 (Up)\nnope\n", "t"); }), 2);
}

TEST(ShowGids, BondsIpv4MappedAndVersions) {
  const auto g = parse_show_gids(capture("show_gids-bond.txt"), "g");
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(g[3].device, "mlx5_bond_0");
  EXPECT_EQ(g[3].index, 3);
  EXPECT_EQ(g[3].ipv4, "10.96.83.26");
  EXPECT_EQ(g[3].version, "v2");
  EXPECT_EQ(g[3].netdev, "bond0");
  EXPECT_EQ(g[0].ipv4, "");
  EXPECT_EQ(g[0].where.line, 3);
  EXPECT_EQ(parse_show_gids(capture("show_gids-rdma0.txt"), "g").size(), 4u);
  EXPECT_EQ(
      error_line([] { parse_show_gids("DEV PORT INDEX GID IPv4 VER DEV\nmlx5_0 1 x\n", "t"); }), 2);
}

// A k8s pod's empty GID table as pasted with the reporter's own words after it
// (Mellanox/k8s-rdma-sriov-dev-plugin#30): n_gids_found ends show_gids' output.
TEST(ShowGids, OutputEndsAtItsCount) {
  EXPECT_TRUE(parse_show_gids("DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n"
                              "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n"
                              "n_gids_found=0\n\nother info like :\n",
                              "t")
                  .empty());
}

TEST(MstStatus, DevicesWithRdmaNetAndNuma) {
  const auto m = parse_mst_status(capture("mst-status-v-cx7.txt"), "m");
  ASSERT_EQ(m.size(), 6u);
  EXPECT_EQ(m[0].type, "ConnectX7(rev:0)");
  EXPECT_EQ(m[0].mst, "/dev/mst/mt4129_pciconf8");
  EXPECT_EQ(m[0].pci, "e3:00.0");
  EXPECT_EQ(m[0].rdma, "mlx5_10");
  EXPECT_EQ(m[0].net, "ib7");
  EXPECT_EQ(m[0].numa, 3);
  EXPECT_EQ(error_line([] { parse_mst_status("MST modules:\n", "t"); }), 1);
}

TEST(DcgmiDiag, Dcgm3FailAllWithAWrappedWarning) {
  const DcgmDiagFacts d = parse_dcgmi_diag(capture("dcgmi-diag-3.3.0-pcie-fail-all.txt"), "d");
  EXPECT_EQ(d.dcgm_version, "3.3.0");
  EXPECT_EQ(d.driver_version, "530.30.02");
  ASSERT_EQ(d.tests.size(), 11u);
  const DcgmDiagTest& pcie = d.tests[9];
  EXPECT_EQ(pcie.name, "PCIe");
  EXPECT_EQ(pcie.category, "Integration");
  EXPECT_EQ(pcie.result, "Fail");
  ASSERT_EQ(pcie.warnings.size(), 1u);
  EXPECT_EQ(pcie.warnings[0],
            "GPU 0 Error using CUDA API cudaDeviceGetByPCIBusId Check DCGM and system logs for "
            "errors. Reset GPU. Restart DCGM. Rerun diagnostics. 'system has unsupported display "
            "driver / cuda driver combination' for GPU 0, bus ID = 00000000:1B:00.0");
  EXPECT_EQ(d.tests[10].result, "Skip");
}

TEST(DcgmiDiag, Dcgm4PerGpuResults) {
  const DcgmDiagFacts d =
      parse_dcgmi_diag(capture("dcgmi-diag-4.2.3-pcie-internal-error.txt"), "d");
  ASSERT_EQ(d.tests.size(), 3u);
  EXPECT_EQ(d.tests[2].name, "pcie");
  EXPECT_EQ(d.tests[2].result, "Fail");
  ASSERT_EQ(d.tests[2].warnings.size(), 4u);
  // 45-character slices joined as printed: the blank that ends "test: " is kept.
  EXPECT_EQ(d.tests[2].warnings[0],
            "There was an internal error during the test: 'A child process (152) exited with "
            "non-zero status 1' Check DCGM and system logs for errors. Reset GPU. Restart DCGM. "
            "Rerun diagnostics.");
  ASSERT_EQ(d.tests[2].per_gpu.size(), 4u);
  EXPECT_EQ(d.tests[2].per_gpu.at(3), "Pass");
  const DcgmDiagFacts ok = parse_dcgmi_diag(capture("dcgmi-diag-4.0.0-r3-pass.txt"), "d");
  ASSERT_EQ(ok.tests.size(), 7u);
  for (const auto& t : ok.tests) EXPECT_EQ(t.result, "Pass") << t.name;
  const DcgmDiagFacts err = parse_dcgmi_diag(capture("dcgmi-diag-deployment-error.txt"), "d");
  ASSERT_EQ(err.tests.size(), 1u);
  EXPECT_EQ(err.tests[0].result, "Fail");
  EXPECT_EQ(err.tests[0].warnings[0],
            "GPU 3 has uncorrectable memory errors and row remappings are pending");
  EXPECT_EQ(error_line([] { parse_dcgmi_diag("Error: unable to connect to host engine\n", "t"); }),
            1);
}

TEST(NvidiaBugReport, SplitsAndFeedsTheSectionsWithLogLineNumbers) {
  NodeFacts n = empty_capture_node("bug");
  const BugReport r = apply_nvidia_bug_report(n, capture("nvidia-bug-report-assembled.log"), "b");
  EXPECT_GE(r.sections.size(), 5u);
  ASSERT_TRUE(n.gpus.ok());
  ASSERT_EQ(n.gpus->gpus.size(), 1u);
  EXPECT_EQ(n.gpus->gpus[0].remap_pending, true);
  EXPECT_GT(n.gpus->gpus[0].where.line, 109);  // in the log, not in the section
  ASSERT_TRUE(n.kernel_log.ok());
  ASSERT_EQ(n.kernel_log->xids.size(), 4u);
  EXPECT_EQ(n.kernel_log->xids[0].code, 13);
  EXPECT_EQ(n.kernel_log->xids[0].where.line, 102);
  EXPECT_TRUE(n.pci.ok());
  EXPECT_EQ(error_line([&] { apply_nvidia_bug_report(n, "just text\n", "t"); }), 1);
}

TEST(NodeCaptures, DetectedByContent) {
  const std::pair<const char*, CaptureKind> cases[] = {
      {"scontrol-show-node-gres-lower.txt", CaptureKind::kScontrolNode},
      {"sinfo-R-unige-gres.txt", CaptureKind::kSinfoReasons},
      {"nvidia-smi-a40-err.txt", CaptureKind::kNvidiaSmi},
      {"nvidia-smi-a100-8gpu.txt", CaptureKind::kNvidiaSmi},
      {"nvidia-smi-unknown-error.txt", CaptureKind::kNvidiaSmi},
      {"nvidia-smi-gpu-lost.txt", CaptureKind::kNvidiaSmi},
      {"nvidia-smi-q-a100-remap-pending.txt", CaptureKind::kNvidiaSmiQuery},
      {"ibdev2netdev-imbue-h100.txt", CaptureKind::kIbdev2netdev},
      {"show_gids-bond.txt", CaptureKind::kShowGids},
      {"mst-status-v-cx7.txt", CaptureKind::kMstStatus},
      {"dcgmi-diag-3.3.0-pcie-fail-all.txt", CaptureKind::kDcgmiDiag},
      {"dcgmi-diag-4.2.3-pcie-internal-error.txt", CaptureKind::kDcgmiDiag},
      {"nvidia-bug-report-assembled.log", CaptureKind::kNvidiaBugReport},
  };
  for (const auto& [file, kind] : cases)
    EXPECT_EQ(capture_kind_name(detect_capture_kind(capture(file))), capture_kind_name(kind))
        << file;
}

// ibv_devinfo without -v needs no new parser: the existing one reads its state and link layer
// (the RoCE port mlx5_1 of an Azure HB120rs_v3 stays Ethernet, never an IB port).
TEST(IbvDevinfoWithoutV, AlreadyReadByTheExistingParser) {
  const IbFacts ib = parse_ibv_devinfo(capture("ibv_devinfo-no-v-aks-hb120.txt"), "i");
  ASSERT_EQ(ib.devices.size(), 2u);
  ASSERT_EQ(ib.devices[1].ports.size(), 1u);
  EXPECT_EQ(ib.devices[1].ports[0].link_layer.value, "Ethernet");
  EXPECT_TRUE(ib.devices[0].ports[0].state.ok());
  EXPECT_EQ(capture_kind_name(detect_capture_kind(capture("ibv_devinfo-no-v-aks-hb120.txt"))),
            "ibv_devinfo");
}
