// The NCCL log analyser on every real log in tests/data/fixtures/nccl-debug, each with the facts
// a reader of the log would write down, plus truncated, garbage, gzip and per-rank-directory input.
#include "parsers/nccl_log.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>

#include "core/input_error.h"
#include "support/paths.h"

namespace trainready {
namespace {

using test::fixture;
using test::read_fixture;
using test::synthetic_log;

NcclRunFacts analyze(const std::string& rel) { return analyze_nccl_logs({fixture(rel)}); }

const TransportUse* transport(const NcclRunFacts& f, const std::string& key) {
  auto it = f.transports.find(key);
  return it == f.transports.end() ? nullptr : &it->second;
}

TEST(NcclLog, BigScience16NodeOmniPath) {
  NcclRunFacts f = analyze("nccl-debug/bigscience-jz-16node-v100-netib-hfi1-nccl2.7.8.log");
  EXPECT_EQ(f.lines, 3145u);
  ASSERT_EQ(f.versions.size(), 1u);
  EXPECT_EQ(f.versions.begin()->first, "2.7.8");
  EXPECT_EQ(f.versions.begin()->second.where.line, 184);  // the bare banner line
  EXPECT_EQ(f.net_plugin, "IB");
  EXPECT_EQ(f.hosts().size(), 16u);
  EXPECT_EQ(f.streams.size(), 64u);
  ASSERT_EQ(f.comms.size(), 1u);
  const NcclCommunicator& c = f.comms.begin()->second;
  EXPECT_EQ(c.id, "nranks=64");  // 2.7.8 prints no commId
  EXPECT_EQ(c.ranks_complete.size(), 64u);
  ASSERT_EQ(f.net_devices.size(), 4u);
  EXPECT_EQ(f.net_devices[0].name, "hfi1_2");
  EXPECT_EQ(f.net_devices[0].link_layer, "IB");
  EXPECT_FALSE(f.net_devices[0].gdr.has_value());
  const TransportUse* ib = transport(f, "NET/IB");
  ASSERT_NE(ib, nullptr);
  EXPECT_FALSE(ib->gdrdma);
  EXPECT_EQ(ib->hosts.size(), 16u);
  ASSERT_NE(transport(f, "P2P/IPC"), nullptr);
  EXPECT_TRUE(f.multi_node());
  EXPECT_EQ(f.unknown_lines, 0u);
  EXPECT_TRUE(f.issues.empty());
}

// An error trail's line is read (the first trail and its places), not counted as a line no
// reader takes (nccl#622's "include/net.h:22 -> 2" was both).
TEST(NcclLog, AnErrorTrailLineIsNoUnrecognisedLine) {
  const std::string path = test::temp_dir("trail-known") + "/t.log";
  std::ofstream(path) << "machine1:196207:196244 [0] NCCL INFO include/net.h:22 -> 2\n"
                         "machine1:196207:196244 [0] NCCL INFO an INFO line no reader takes\n";
  const NcclRunFacts f = analyze_nccl_logs({path});
  ASSERT_TRUE(f.first_error_return);
  EXPECT_EQ(f.unknown_lines, 1u);
}

TEST(NcclLog, BigScienceOneNodeUsesOnlyP2p) {
  NcclRunFacts f = analyze("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log");
  EXPECT_EQ(f.streams.size(), 4u);
  EXPECT_FALSE(f.multi_node());
  ASSERT_EQ(f.transports.size(), 1u);
  EXPECT_EQ(f.transports.begin()->second.label, "P2P/IPC");
  EXPECT_EQ(f.comms.begin()->second.ranks_complete.size(), 4u);
}

// "nNodes 2" printed between Init START and an Init COMPLETE that never comes (aws/aws-ofi-nccl
// #801: init hangs in the plugin): the communicator still spans two nodes.
TEST(NcclLog, NNodesOfAnInitThatNeverCompletes) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "[0] NCCL INFO ncclCommInitRank comm 0xaaaa rank 0 nranks 2 cudaDev 0 busId 2901000 commId "
      "0x8e6e - Init START\n"
      "[0] NCCL INFO comm 0xaaaa rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0\n",
      "t.log");
  EXPECT_EQ(f.max_comm_nodes(), 2);
  EXPECT_TRUE(f.multi_node());
  const NcclRunFacts one = analyze_nccl_log_text(
      "[0] NCCL INFO ncclCommInitRank comm 0xaaaa rank 0 nranks 2 cudaDev 0 busId 2901000 commId "
      "0x8e6e - Init START\n"
      "[0] NCCL INFO comm 0xaaaa rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n",
      "u.log");
  EXPECT_FALSE(one.multi_node());
}

// An excerpt with the "comm ... nNodes" line and no Init START (modelscope/ms-swift#6107): the
// nodes NCCL printed still say the run spans machines.
TEST(NcclLog, NNodesOfAnExcerptWithoutInitLines) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "iv-y:1458554:1480517 [6] NCCL INFO comm 0x5a8163e0 rank 7 nRanks 8 nNodes 2 localRanks 4 "
      "localRank 3 MNNVL 0\n",
      "t.log");
  EXPECT_EQ(f.nnodes_printed, 2);
  EXPECT_TRUE(f.multi_node());
}

// A build that prints the communicator after the transport (ray-project/ray#59778): the
// transport is what comes before it.
TEST(NcclLog, TransportBeforeACommunicatorSuffix) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "k8s17:581:581 [0] NCCL INFO Channel 00/0 : 16[17000] -> 18[21000] via P2P/IPC comm "
      "0x5609976f9470 nRanks 32\n"
      "k8s17:581:581 [0] NCCL INFO Channel 01/0 : 16[17000] -> 18[21000] via P2P/IPC comm "
      "0x5609976f9470 nRanks 32\n",
      "t.log");
  ASSERT_EQ(f.transports.size(), 1u);
  EXPECT_EQ(f.transports.begin()->second.label, "P2P/IPC");
  EXPECT_EQ(f.transports.begin()->second.connections, 2u);
}

TEST(NcclLog, AzureErrorTwelveWrappedLine) {
  NcclRunFacts f = analyze("nccl-debug/mlengineering-azure-2node-ib-error12-timeout.log");
  auto it = f.issues.find(NcclProblem::kIbCompletionError);
  ASSERT_NE(it, f.issues.end());
  EXPECT_EQ(it->second.count, 1u);
  EXPECT_TRUE(it->second.details.count("error 12"));
  EXPECT_TRUE(it->second.peers.count("10.2.0.5<33092>"));
  EXPECT_EQ(it->second.examples.front().where.line, 1);
  EXPECT_TRUE(f.versions.empty());
}

TEST(NcclLog, RcclVersionBlockIsReadAsRcclNotNccl) {
  // ROCm/vllm#390: RCCL prints "RCCL version : ..." and, in the same INFO message, lines without
  // a record head ("HIP version  : ...", "ROCm version : ...").
  NcclRunFacts f = analyze("nccl-debug/rocmvllm390-rccl2.22.3-missing-iommu-pt.log");
  EXPECT_TRUE(f.versions.empty());  // NCCL's own release knowledge must not apply to RCCL
  ASSERT_EQ(f.rccl_versions.size(), 1u);
  EXPECT_EQ(f.rccl_versions.begin()->first, "2.22.3");
  EXPECT_EQ(f.rccl_versions.begin()->second.where.line, 2);
  EXPECT_EQ(f.rocm_versions, std::set<std::string>{"6.4.0.0-47-73dae9c"});
  EXPECT_EQ(f.unknown_lines, 0u);
}

TEST(NcclLog, RcclVersionLinesOfRocm5AndBare) {
  // ROCm 5.x's format (src/init.cc:637 @ ROCm/rccl rocm-5.7.0: "RCCL version %d.%d.%d%s+hip%d.%d
  // <git hash>"), as an INFO record and bare on stdout; a NCCL banner beside it stays NCCL's.
  NcclRunFacts f = analyze_nccl_log_text(
      "h1:10:10 [0] NCCL INFO RCCL version 2.17.1+hip5.7 4fa9f9b\n"
      "RCCL version 2.16.5+hip5.6 a0b1c2d\n"
      "RCCL version : \n"
      "ROCm version : \n",
      "rccl.log");
  EXPECT_EQ(f.rccl_versions.size(), 2u);
  EXPECT_TRUE(f.rccl_versions.count("2.17.1"));
  EXPECT_TRUE(f.rccl_versions.count("2.16.5"));
  EXPECT_TRUE(f.rocm_versions.empty());
  EXPECT_TRUE(f.versions.empty());
}

// An RCCL log without its version line (ROCm/rccl-tests#163): a WARN from RCCL's source tree, or
// a plugin loader naming librccl-*, marks it RCCL's; NCCL's own WARN paths and plugins do not.
TEST(NcclLog, RcclMarkWithoutAVersionLine) {
  NcclRunFacts warn = analyze_nccl_log_text(
      "z292:58192:58199 [1] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
      "z292:58192:58200 [2] /long_pathname_so_that_rpms_can_package_the_debug_info/src/rccl/"
      "build/hipify/src/init.cc:2065 NCCL WARN MSCCL++: Cannot enable MSCCL++; environment is "
      "not MSCCL compatible\n",
      "r.log");
  ASSERT_TRUE(warn.rccl_mark.has_value());
  EXPECT_EQ(warn.rccl_mark->where.line, 2);
  EXPECT_TRUE(warn.is_rccl());
  NcclRunFacts plugin = analyze_nccl_log_text(
      "z292:58192:58199 [1] NCCL INFO TUNER/Plugin: Plugin load returned 11 : librccl-net.so: "
      "cannot open shared object file: No such file or directory : when loading "
      "librccl-tuner.so\n",
      "r.log");
  EXPECT_TRUE(plugin.is_rccl());
  NcclRunFacts nccl = analyze_nccl_log_text(
      "h:1:2 [0] transport/net_ib.cc:1296 NCCL WARN NET/IB : Got completion with error 12\n"
      "h:1:2 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so\n",
      "n.log");
  EXPECT_FALSE(nccl.is_rccl());
}

TEST(NcclLog, VllmsPyncclVersionLine) {
  // vLLM's pynccl line as a Ray worker prints it (vllm-project/vllm#6732-style prefixes kept):
  // the version of the NCCL its own communicator loaded.
  NcclRunFacts f = analyze_nccl_log_text(
      "INFO 07-20 17:27:20 pynccl.py:63] vLLM is using nccl==2.21.5\n"
      "(RayWorkerWrapper pid=593, ip=10.5.6.103) INFO 07-20 17:27:20 pynccl.py:63] vLLM is "
      "using nccl==2.21.5\n"
      "INFO 08-14 12:08:39 [pynccl.py:70] sglang is using nccl==2.26.2 (via nccl4py)\n",
      "vllm.log");
  ASSERT_EQ(f.versions.size(), 2u);
  EXPECT_TRUE(f.versions.count("2.21.5"));
  EXPECT_TRUE(f.versions.count("2.26.2"));
  EXPECT_EQ(f.versions.at("2.21.5").where.line, 1);
}

TEST(NcclLog, ConnectionRefused) {
  NcclRunFacts f = analyze("nccl-debug/mlengineering-jz-socket-connect-refused-warn.log");
  auto it = f.issues.find(NcclProblem::kConnectionFailed);
  ASSERT_NE(it, f.issues.end());
  EXPECT_TRUE(it->second.details.count("Connection refused"));
  EXPECT_TRUE(it->second.peers.count("10.148.3.247<56821>"));
  EXPECT_TRUE(it->second.hosts.count("r11i6n2"));
}

TEST(NcclLog, PyTorchUnhandledSystemError) {
  NcclRunFacts f = analyze("nccl-debug/mlengineering-jz-unhandled-system-error-nccl2.7.8.log");
  EXPECT_EQ(f.nccl_lines, 0u);
  ASSERT_TRUE(f.versions.count("2.7.8"));
  auto it = f.issues.find(NcclProblem::kSystemError);
  ASSERT_NE(it, f.issues.end());
  EXPECT_EQ(it->second.count, 2u);  // the RuntimeError and the ncclSystemError line
}

TEST(NcclLog, WatchdogTimeoutAndDesync) {
  NcclRunFacts f =
      analyze("nccl-debug/mlengineering-pytorch-watchdog-collective-timeout-desync.log");
  ASSERT_EQ(f.timeouts.size(), 1u);
  EXPECT_EQ(f.timeouts[0].rank, 0);
  EXPECT_EQ(f.timeouts[0].seq, 2);
  EXPECT_EQ(f.timeouts[0].op, "ALLREDUCE");
  EXPECT_EQ(f.timeouts[0].timeout_ms, 8000);
  EXPECT_EQ(f.timeouts[0].ran_ms, 8097);
  ASSERT_EQ(f.lagging.size(), 1u);
  EXPECT_EQ(f.lagging[0].rank, 1);
  EXPECT_EQ(f.lagging[0].line.where.line, 4);
}

TEST(NcclLog, TuningTableAndAlgorithmSelection) {
  NcclRunFacts f =
      analyze("nccl-debug/nccl-ebpf-1node-rtx5090-tuning-table-algo-select-nccl2.29.7.log");
  EXPECT_TRUE(f.versions.count("2.29.7"));
  EXPECT_TRUE(f.tuning_table);
  EXPECT_EQ(f.algorithms, (std::set<std::string, std::less<>>{"RING"}));
  EXPECT_EQ(f.protocols, (std::set<std::string, std::less<>>{"LL", "SIMPLE"}));
  ASSERT_TRUE(f.env.count("NCCL_P2P_DISABLE"));
  EXPECT_EQ(f.env.at("NCCL_P2P_DISABLE").value, "1");
  EXPECT_EQ(f.unknown_lines, 0u);
  const NcclStream& s = f.streams.begin()->second;
  EXPECT_TRUE(s.collective_activity);
  EXPECT_TRUE(s.init_complete);  // collectives ran, so init finished
}

TEST(NcclLog, NcclTests350RoceAndIbWithGdrdma) {
  NcclRunFacts f = analyze(
      "nccl-debug/nccltests350-2node-a100pcie-roce-ib-gdrdma-gather-dropoff-nccl2.16.5.log");
  EXPECT_TRUE(f.versions.count("2.16.5"));
  ASSERT_EQ(f.net_devices.size(), 2u);
  EXPECT_EQ(f.net_devices[0].name, "mlx5_0");
  EXPECT_EQ(f.net_devices[0].link_layer, "RoCE");
  EXPECT_EQ(f.net_devices[1].link_layer, "IB");
  EXPECT_TRUE(f.net_devices[1].gdr.value_or(false));
  const TransportUse* ib = transport(f, "NET/IB/GDRDMA");
  ASSERT_NE(ib, nullptr);
  EXPECT_TRUE(ib->gdrdma);
  EXPECT_EQ(ib->connections, 6u);  // 4 at init, 2 "/GDRDMA/Shared" for the test's p2p
  EXPECT_EQ(f.env.at("NCCL_NET_GDR_LEVEL").value, "SYS");
  ASSERT_EQ(f.comms.size(), 1u);
  EXPECT_EQ(f.comms.begin()->second.nranks, 2);
  EXPECT_EQ(f.comms.begin()->second.ranks_complete.size(), 1u);  // only n013's log
  EXPECT_TRUE(f.multi_node());
}

// ms-swift#3934's shape: ranks of one host writing into one file cut each other's records, so a
// record's head follows a pointer ("parent 0x55cd375") or a cut word ("closed by l"): one host.
TEST(NcclLog, ConcurrentWritersDoNotMakeHosts) {
  NcclRunFacts f = analyze_nccl_log_text(
      "g183:161264:166015 [7] NCCL INFO Channel 08/0 : 7[7] -> 15[7] [send] via NET/IB/8/GDRDMA\n"
      "g183:161258:166018 [1] NCCL INFO ncclCommSplit comm 0x7fe5126331e0 rank 1 nranks 16 "
      "parent 0x55cd375g183:161262:166017 [5] NCCL INFO ncclCommSplit comm 0x7f831a628b80 rank 5\n"
      "g183:161260:166045 [3] NCCL INFO [Service thread] Connection closed by lg183:161262:166047 "
      "[5] NCCL INFO [Service thread] Connection closed by localRank 1\n",
      "t.log");
  EXPECT_EQ(f.hosts(), (std::set<std::string>{"g183"}));
  EXPECT_EQ(f.streams.count("g183:161262:5"), 1u);
}

TEST(NcclLog, RaddetSocketShmWithGarbledLines) {
  NcclRunFacts f = analyze("nccl-debug/raddet-1node-2gpu-noib-socket-bond0-shm.log");
  EXPECT_EQ(f.hosts(), (std::set<std::string>{"ljm"}));  // glued digits are not a new host
  EXPECT_EQ(f.net_plugin, "Socket");
  ASSERT_TRUE(f.ib_no_device.has_value());
  EXPECT_EQ(f.ib_no_device->where.line, 5);
  ASSERT_EQ(f.socket_interfaces.size(), 1u);
  EXPECT_NE(f.socket_interfaces[0].text.find("bond0"), std::string::npos);
  EXPECT_GT(f.garbled_lines, 0u);
  ASSERT_NE(transport(f, "SHM"), nullptr);
  EXPECT_EQ(f.comms.begin()->second.ranks_complete.size(), 2u);
  EXPECT_FALSE(f.multi_node());
}

TEST(NcclLog, Timezzx2_27VerboseSingleNode) {
  NcclRunFacts f =
      analyze("nccl-debug/timezzx-1node-2xa100pcie-nvlink-roce-nccl2.27.7-subsys-all.log");
  EXPECT_TRUE(f.versions.count("2.27.7"));
  EXPECT_EQ(f.hosts(), (std::set<std::string>{"mew0"}));
  ASSERT_EQ(f.comms.size(), 1u);
  const NcclCommunicator& c = f.comms.begin()->second;
  EXPECT_EQ(c.id, "0x54fe282d32a87d85");
  EXPECT_EQ(c.nnodes, 1);
  EXPECT_EQ(c.ranks_started.size(), 2u);
  EXPECT_EQ(c.ranks_complete.size(), 2u);
  bool vdev = false;
  for (const auto& d : f.net_devices) {
    if (d.name == "mlx5_0+mlx5_1") {
      vdev = true;
      EXPECT_DOUBLE_EQ(d.speed_gbps, 200.0);
      EXPECT_FALSE(d.gdr.value_or(true));
    }
    if (d.name == "mlx5_0") {
      EXPECT_DOUBLE_EQ(d.speed_gbps, 100.0);
    }
  }
  EXPECT_TRUE(vdev);
  ASSERT_NE(transport(f, "P2P/direct pointer"), nullptr);
  EXPECT_FALSE(f.multi_node());
  EXPECT_TRUE(f.env.count("NCCL_TOPO_DUMP_FILE"));
  ASSERT_EQ(f.topology_files.size(), 1u);  // the dump file NCCL was told to write
  EXPECT_NE(f.topology_files[0].text.find("nccl_topo_dump.xml"), std::string::npos);
}

TEST(NcclLog, LauncherPrefixesAndInterleavedScriptOutput) {
  NcclRunFacts f = analyze_nccl_logs({synthetic_log("socket-ib-disabled-2node.log")});
  EXPECT_EQ(f.hosts(), (std::set<std::string>{"node-a", "node-b"}));
  EXPECT_TRUE(f.versions.count("2.21.5"));
  EXPECT_EQ(f.env.at("NCCL_IB_DISABLE").value, "1");
  EXPECT_EQ(f.comms.begin()->second.nnodes, 2);
  EXPECT_EQ(f.comms.begin()->second.ranks_complete.size(), 4u);
  ASSERT_NE(transport(f, "NET/Socket"), nullptr);
  EXPECT_EQ(transport(f, "NET/Socket")->connections, 5u);
  EXPECT_EQ(f.streams.at("node-b:5202:0").bus_id, "100000");
}

TEST(NcclLog, SrunPrefixesAndStartWithoutComplete) {
  NcclRunFacts f = analyze_nccl_logs({synthetic_log("init-hang-2node.log")});
  ASSERT_EQ(f.comms.size(), 1u);
  EXPECT_EQ(f.comms.begin()->second.ranks_started, (std::set<int>{0, 1, 2}));
  EXPECT_TRUE(f.comms.begin()->second.ranks_complete.empty());
  for (const auto& [k, s] : f.streams) EXPECT_FALSE(s.init_complete) << k;
}

TEST(NcclLog, NewerCompletionErrorFormat) {
  NcclRunFacts f = analyze_nccl_logs({synthetic_log("ib-completion-status-new.log")});
  const NcclIssue& i = f.issues.at(NcclProblem::kIbCompletionError);
  EXPECT_TRUE(i.details.count("error 12"));
  EXPECT_TRUE(i.details.count("vendor err 129"));
}

TEST(NcclLog, SeveralFilesKeepTheirOwnLineNumbers) {
  NcclRunFacts f = analyze_nccl_logs(
      {synthetic_log("gdr-no-module.log"), synthetic_log("ib-completion-status-new.log")});
  EXPECT_EQ(f.files.size(), 2u);
  const NcclIssue& i = f.issues.at(NcclProblem::kIbCompletionError);
  EXPECT_EQ(i.examples[0].where.line, 2);
  EXPECT_NE(i.examples[0].where.source.find("ib-completion-status-new.log"), std::string::npos);
  EXPECT_EQ(f.versions.size(), 2u);
}

TEST(NcclLog, DirectoryOfPerRankLogs) {
  const std::string dir = test::temp_dir("per-rank");
  const std::string all = read_fixture("../nccl-debug-synthetic/socket-ib-disabled-2node.log");
  std::ofstream(dir + "/rank0.log") << all.substr(0, all.size() / 2);
  std::ofstream(dir + "/rank1.log") << all.substr(all.size() / 2);
  NcclRunFacts f = analyze_nccl_logs({dir});
  EXPECT_EQ(f.files.size(), 2u);
  EXPECT_EQ(f.hosts().size(), 2u);
  EXPECT_THROW(analyze_nccl_logs({test::temp_dir("empty-dir")}), InputError);
}

TEST(NcclLog, GzipIsReadAsAStream) {
  const std::string path = test::temp_dir("gz") + "/run.log.gz";
  const std::string text = read_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log");
  gzFile g = gzopen(path.c_str(), "wb");
  ASSERT_NE(g, nullptr);
  gzwrite(g, text.data(), static_cast<unsigned>(text.size()));
  gzclose(g);
  NcclRunFacts f = analyze_nccl_logs({path});
  EXPECT_EQ(f.lines, 264u);
  EXPECT_EQ(f.streams.size(), 4u);
}

TEST(NcclLog, TruncatedAndConcatenatedGzip) {
  const std::string dir = test::temp_dir("gz2");
  const std::string text = read_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log");
  auto gz = [&](const std::string& path, const std::string& data) {
    gzFile g = gzopen(path.c_str(), "wb");
    ASSERT_NE(g, nullptr);
    gzwrite(g, data.data(), static_cast<unsigned>(data.size()));
    gzclose(g);
  };
  gz(dir + "/a.gz", text.substr(0, text.size() / 2));
  gz(dir + "/b.gz", text.substr(text.size() / 2));
  std::ifstream a(dir + "/a.gz", std::ios::binary), b(dir + "/b.gz", std::ios::binary);
  std::string both((std::istreambuf_iterator<char>(a)), {});
  std::string tail((std::istreambuf_iterator<char>(b)), {});
  std::ofstream(dir + "/both.gz", std::ios::binary) << both << tail;  // `cat a.gz b.gz`
  EXPECT_EQ(analyze_nccl_logs({dir + "/both.gz"}).lines, 264u);
  std::ofstream(dir + "/cut.gz", std::ios::binary) << both.substr(0, both.size() * 2 / 3);
  NcclRunFacts cut = analyze_nccl_logs({dir + "/cut.gz"});  // kept what inflated, no throw
  EXPECT_GT(cut.lines, 10u);
  EXPECT_LT(cut.lines, 133u);
}

TEST(NcclLog, CorruptGzipIsAnInputError) {
  const std::string path = test::temp_dir("badgz") + "/bad.gz";
  std::ofstream(path) << std::string("\x1f\x8b\x08\x00garbage-not-deflate", 24);
  EXPECT_THROW(analyze_nccl_logs({path}), InputError);
}

TEST(NcclLog, MissingFileIsAnInputError) {
  try {
    analyze_nccl_logs({"/nonexistent/run.log"});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/run.log");
  }
}

TEST(NcclLog, TruncatedLogsNeverThrow) {
  const std::string text = read_fixture(
      "nccl-debug/nccltests350-2node-a100pcie-roce-ib-gdrdma-gather-dropoff-nccl2.16.5.log");
  for (std::size_t cut = 0; cut < text.size(); cut += 97) {
    NcclRunFacts f = analyze_nccl_log_text(text.substr(0, cut), "cut.log");
    EXPECT_LE(f.nccl_lines, 80u);
  }
}

TEST(NcclLog, GarbageAndBinaryJunkAreCountedNotFatal) {
  std::string junk;
  for (int i = 0; i < 5000; ++i) junk += static_cast<char>((i * 131 + 7) % 256);
  junk += "\nhost:1:2 [0] NCCL INFO comm 0x1 rank 99 nranks 2 - Init COMPLETE\n";  // rank >= nranks
  junk += "host:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via \n";
  junk += "host:1:2 [0] NCCL INFO something NCCL has never printed\n";
  NcclRunFacts f = analyze_nccl_log_text(junk, "junk.log");
  EXPECT_TRUE(f.binary_junk);
  EXPECT_TRUE(f.comms.empty());
  EXPECT_EQ(f.unknown_lines, 1u);
}

TEST(NcclLog, VeryLongLinesAreCut) {
  std::string text = "host:1:2 [0] NCCL INFO NCCL version 2.19.3+cuda12.2\n";
  text += std::string(300000, 'x') + "\n";
  text += "host:1:2 [0] NCCL INFO Using network IB\n";
  NcclRunFacts f = analyze_nccl_log_text(text, "long.log");
  EXPECT_EQ(f.truncated_lines, 1u);
  EXPECT_EQ(f.lines, 3u);
  EXPECT_EQ(f.net_plugin, "IB");
}

TEST(NcclLog, UnknownVersionsAreRecorded) {
  NcclRunFacts f = analyze_nccl_log_text(
      "h:1:1 [0] NCCL INFO NCCL version 3.1.0+cuda14.0\nh:1:1 [0] NCCL INFO a future message\n",
      "future.log");
  EXPECT_TRUE(f.versions.count("3.1.0"));
  EXPECT_EQ(f.unknown_lines, 1u);
}

// PyTorch's old getNcclVersion decoded NCCL 2.9+'s version code with the pre-2.9 base (code /
// 1000): "21.1.4" is 2.11.4 (21104), as NVIDIA/nccl#577's traceback printed it. Undone for a
// framework's error; NCCL's own banner and a right decoding stay as printed.
TEST(NcclLog, AFrameworksMisdecodedVersionIsUndone) {
  auto versions = [](const std::string& line) {
    std::string out;
    for (const auto& [v, l] : analyze_nccl_log_text(line + "\n", "v.log").versions) out += v + " ";
    return out;
  };
  const std::string err =
      "52: RuntimeError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/"
      "ProcessGroupNCCL.cpp:975, internal error, NCCL version ";
  EXPECT_EQ(versions(err + "21.1.4"), "2.11.4 ");
  EXPECT_EQ(versions(err + "21.8.3"), "2.18.3 ");
  EXPECT_EQ(versions(err + "22.1.5"), "2.21.5 ");
  EXPECT_EQ(versions(err + "2.7.8"), "2.7.8 ");    // before 2.9 the decoding was right
  EXPECT_EQ(versions(err + "2.21.5"), "2.21.5 ");  // a PyTorch that decodes 2.9+ right
  EXPECT_EQ(versions(err + "21.1"), "21.1 ");      // not the three parts: as printed
  EXPECT_EQ(versions("NCCL version 21.1.4+cuda11.4"), "21.1.4 ");  // NCCL's own banner
}

TEST(NcclLog, CollectiveFastPathStillSeesEverythingElse) {
  // Once both ranks have shown traffic, collective lines skip the per-rank work; warnings,
  // glued records and new ranks must still be seen.
  std::string t;
  for (int i = 0; i < 3; ++i) {
    t += "h:1:1 [0] NCCL INFO AllReduce: opCount " + std::to_string(i) + " sendbuff 0x1 count 8\n";
    t += "h:2:2 [1] NCCL INFO AllReduce: 1024 Bytes -> Algo TREE proto LL channel{Lo..Hi}={0..0}\n";
  }
  t += "h:1:1 [0] init.cc:1 NCCL WARN Cuda failure 'out of memory'\n";
  t += "h:1:1 [0] NCCL INFO AllReduce: opCount 9 sendbuff 0x1h:2:2 [1] enqueue.cc:2 NCCL WARN "
       "Something odd\n";
  t += "h:3:3 [0] NCCL INFO AllGather: 2048 Bytes -> Algo RING proto SIMPLE "
       "channel{Lo..Hi}={0..0}\n";
  NcclRunFacts f = analyze_nccl_log_text(t, "fast.log");
  EXPECT_EQ(f.nccl_lines, 10u);
  EXPECT_EQ(f.issues.at(NcclProblem::kCudaError).count, 1u);
  EXPECT_EQ(f.issues.at(NcclProblem::kOtherWarning).count, 1u);
  EXPECT_EQ(f.streams.size(), 3u);  // h:3 is new: it takes the full path
  EXPECT_TRUE(f.streams.at("h:3:0").collective_activity);
  EXPECT_EQ(f.algorithms, (std::set<std::string, std::less<>>{"RING", "TREE"}));
  EXPECT_EQ(f.protocols, (std::set<std::string, std::less<>>{"LL", "SIMPLE"}));
}

TEST(NcclLog, Detection) {
  EXPECT_TRUE(
      looks_like_nccl_log(read_fixture("nccl-debug/raddet-1node-2gpu-noib-socket-bond0-shm.log")));
  EXPECT_FALSE(looks_like_nccl_log(read_fixture("ib-status/ibstat-mlx4-initializing-40g.txt")));
}

}  // namespace
}  // namespace trainready

namespace trainready {
namespace {

// --- The maintainer's reading: nothing dropped, hosts told apart, setup per host ------------

TEST(NcclLogWarnings, EveryWarnLineSurfacesOnceWithItsCount) {
  NcclRunFacts f = analyze_nccl_log_text(
      "h:1:2 [0] misc/foo.cc:1 NCCL WARN Something nobody knows about : 7\n"
      "h:1:3 [1] misc/foo.cc:1 NCCL WARN Something nobody knows about : 7\n"
      "include/shm.h:28 NCCL WARN Call to posix_fallocate failed: No space left on device\n",
      "w.log");
  ASSERT_EQ(f.warnings.size(), 2u);
  EXPECT_EQ(f.warnings[0].count, 2u);
  EXPECT_EQ(f.warnings[0].message, "Something nobody knows about : 7");
  EXPECT_EQ(f.warnings[1].first.where.line, 3);
  EXPECT_EQ(f.warning_lines, 3u);
  EXPECT_TRUE(has_nccl_output(f));  // a WARN line without its host prefix is still NCCL's
}

TEST(NcclLogWarnings, PyTorchLastErrorLineIsKept) {
  NcclRunFacts f = analyze_nccl_log_text(
      "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
      "Last error:\n"
      "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 2000\n",
      "p.log");
  bool found = false;
  for (const auto& w : f.warnings) found = found || w.message.rfind("Duplicate GPU", 0) == 0;
  EXPECT_TRUE(found);
}

// A line that starts with one of NCCL's names and a colon is NCCL's text; a person's words that
// start with "nccl" are not (NVIDIA/nccl#879's "nccl version: 2.12.12" under the log, a title).
TEST(NcclLogWarnings, NcclsNamesStartAWarningAPersonsWordsDoNot) {
  NcclRunFacts f = analyze_nccl_log_text(
      "ncclSocketInit: connecting to address with family 0 is neither AF_INET(2) nor "
      "AF_INET6(10)\n"
      "nccl version: 2.12.12\n"
      "nccl-tests get stuck and free(): invalid next size (fast) error with 2.19.3\n",
      "p.log");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0].message.rfind("ncclSocketInit: ", 0), 0u);
}

TEST(NcclLogUnrecognised, InfoLinesNoPatternKnowsAreKept) {
  NcclRunFacts f = analyze_nccl_log_text(
      "G:4766:4780 [0] NCCL INFO ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856\n",
      "u.log");
  ASSERT_EQ(f.unrecognised.size(), 1u);
  EXPECT_NE(f.unrecognised[0].text.find("ncclMaxSharedMem"), std::string::npos);
}

TEST(NcclLogTail, LastLinesBeforeSilenceOldestFirst) {
  std::string t;
  for (int i = 0; i < 12; ++i)
    t += "h:1:1 [0] NCCL INFO Channel 0" + std::to_string(i % 10) +
         "/0 : 0[0] -> 1[1] via P2P/IPC\n";
  NcclRunFacts f = analyze_nccl_log_text(t, "t.log");
  ASSERT_EQ(f.last_lines.size(), 8u);
  EXPECT_EQ(f.last_lines.front().where.line, 5);
  EXPECT_EQ(f.last_lines.back().where.line, 12);
}

TEST(NcclLogHosts, SameNameDifferentAddressesAreTwoHosts) {
  NcclRunFacts f = analyze_nccl_log_text(
      "user:10:10 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.10<0>\n"
      "user:10:10 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n"
      "user:77:77 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.14<0>\n"
      "user:77:77 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n",
      "h.log");
  EXPECT_EQ(f.host_count, 2u);
  ASSERT_EQ(f.host_profiles.size(), 2u);
  EXPECT_EQ(f.host_profiles.at("user (10.0.0.14)").env.at("NCCL_IB_DISABLE"), "1");
  EXPECT_EQ(f.host_profiles.at("user (10.0.0.10)").env.at("NCCL_IB_DISABLE"), "0");
  EXPECT_TRUE(f.multi_node());
}

// The shorter echoes of settings read outside param.h: "NCCL_IB_HCA set to" (2.7.3+,
// net_ib), "NCCL_SOCKET_IFNAME set to" (2.6.4+), "NCCL_OOB_NET_IFNAME set to" (2.23.4+);
// "NCCL_ALGO was set to" is an error text's part, not an echo (eugr/spark-vllm-docker#411).
TEST(NcclLogEnv, ShortSetToEchoesAreSettings) {
  NcclRunFacts f = analyze_nccl_log_text(
      "edgexpert-5ead:454:454 [0] NCCL INFO NCCL_SOCKET_IFNAME set to enp1s0f0np0\n"
      "edgexpert-5ead:454:454 [0] NCCL INFO NCCL_IB_HCA set to roceP2p1s0f0,rocep1s0f0\n"
      "edgexpert-5ead:454:454 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.\n"
      "edgexpert-5ead:454:454 [0] NCCL INFO NCCL_ALGO was set to Tree.\n",
      "e.log");
  EXPECT_EQ(f.env.at("NCCL_IB_HCA").value, "roceP2p1s0f0,rocep1s0f0");
  EXPECT_EQ(f.env.at("NCCL_SOCKET_IFNAME").value, "enp1s0f0np0");
  EXPECT_EQ(f.env.at("NCCL_IB_DISABLE").value, "0");
  EXPECT_EQ(f.env.count("NCCL_ALGO"), 0u);
}

TEST(NcclLogHosts, BareVersionBannerBelongsToTheNeighbouringHost) {
  NcclRunFacts f = analyze_nccl_log_text(
      "nodeA:5:5 [0] NCCL INFO Bootstrap : Using [0]ib0:10.1.0.1<0>\n"
      "NCCL version 2.7.8+cuda10.2\n",
      "b.log");
  ASSERT_EQ(f.version_hosts.count("2.7.8"), 1u);
  EXPECT_EQ(*f.version_hosts.at("2.7.8").begin(), "nodeA");
}

TEST(NcclLogHosts, PeerOnAnotherAddressMakesTheRunMultiNode) {
  // issue 14: an IB completion error naming a peer is inter-node evidence.
  NcclRunFacts f = analyze_nccl_log_text(
      "a:1:2 [0] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
      "10.2.0.5<33092> with error 12, opcode 0, len 0, vendor err 129 (Recv)\n",
      "p.log");
  EXPECT_TRUE(f.multi_node());
}

TEST(NcclLogHosts, NcclTestsDeviceLinesGiveTheGpuModel) {
  NcclRunFacts f = analyze_nccl_log_text(
      "#  Rank  0 Group  0 Pid   4766 on   GENOA-06 device  0 [0x21] NVIDIA GeForce RTX 5090\n"
      "GENOA-06:4766:4766 [0] NCCL INFO Bootstrap: Using enp227s0f0:192.168.1.250<0>\n",
      "g.log");
  ASSERT_EQ(f.host_profiles.count("GENOA-06"), 1u);
  EXPECT_EQ(*f.host_profiles.at("GENOA-06").gpus.begin(), "NVIDIA GeForce RTX 5090");
}

TEST(NcclLogHosts, ExactHostCountsBesideTheSample) {
  // issue 14: 512 hosts made connections; the per-transport set keeps 64 names, the count is
  // exact. Lines in the format of NCCL 2.19 connection lines.
  std::string t;
  for (int h = 0; h < 512; ++h) {
    char line[160];
    std::snprintf(line, sizeof line,
                  "node%03d:100:200 [0] NCCL INFO Channel 00/0 : %d[0] -> %d[0] [send] via "
                  "NET/IB/0/GDRDMA\n",
                  h, h, (h + 1) % 512);
    t += line;
  }
  NcclRunFacts f = analyze_nccl_log_text(t, "512.log");
  ASSERT_EQ(f.transports.size(), 1u);
  const TransportUse& u = f.transports.begin()->second;
  EXPECT_EQ(u.hosts.size(), 64u);
  EXPECT_EQ(u.host_total, 512u);
  EXPECT_EQ(f.host_count, 512u);
}

// A paste that starts one character into its first line cuts the host name: that one line's
// stream is the host whose name it ends, with the same pid and device (vllm-project/vllm#15100's
// "eepseek-v2-5-0"). Another host of the same pid that printed more than one line stays its own,
// and so does a cut name on a later line.
TEST(NcclLog, AHostNameCutWhereThePasteStartsIsThatHost) {
  const std::string rest =
      "deepseek-v2-5-0:641:641 [0] NCCL INFO Channel 02/0 : 0[0] -> 7[7] via P2P/IPC/read\n"
      "deepseek-v2-5-0:641:641 [0] NCCL INFO Channel 04/0 : 0[0] -> 7[7] via P2P/IPC/read\n";
  const NcclRunFacts cut = analyze_nccl_log_text(
      "(RayWorkerWrapper pid=641) eepseek-v2-5-0:641:641 [0] NCCL INFO Channel 00/0 : 0[0] -> "
      "7[7] via P2P/IPC/read\n" +
          rest,
      "t.log");
  EXPECT_EQ(cut.hosts(), std::set<std::string>{"deepseek-v2-5-0"});
  EXPECT_EQ(cut.host_count, 1u);
  EXPECT_FALSE(cut.multi_node());
  const NcclRunFacts later = analyze_nccl_log_text(
      rest + "eepseek-v2-5-0:641:641 [0] NCCL INFO Channel 00/0 : 0[0] -> 7[7] via P2P/IPC\n",
      "t.log");
  EXPECT_EQ(later.host_count, 2u);
  const NcclRunFacts two = analyze_nccl_log_text(
      "node-1:641:641 [0] NCCL INFO Channel 00/0 : 0[0] -> 7[7] via P2P/IPC/read\n"
      "node-1:641:641 [0] NCCL INFO Channel 01/0 : 0[0] -> 7[7] via P2P/IPC/read\n" +
          rest,
      "t.log");
  EXPECT_EQ(two.host_count, 2u);
  // Two writers fused a line inside one host's own lines (NVIDIA/nccl#706, horovodrun's "[15]"
  // tag): "[15]23" between lines of "[15]worker-23", same pid and device.
  const NcclRunFacts fused = analyze_nccl_log_text(
      "[15]worker-23:83:2526 [0] misc/socket.cc:503 NCCL WARN Net : Call to recv from "
      "100.96.188.199<41468> failed : Connection timed out\n"
      "[15]23:83:2526 [0] transport/net_socket.cc:219 NCCL WARN NET/Socket : socket progress "
      "error\n"
      "[15]worker-23:83:2520 [0] NCCL INFO include/net.h:32 -> 2\n",
      "t.log");
  EXPECT_EQ(fused.host_count, 1u);
  EXPECT_EQ(fused.hosts(), std::set<std::string>{"worker-23"});  // the "[15]" tag read off
}

// NCCL 2.2-2.4.2 begin init with commAlloc's suffix-less "comm %p rank %d nranks %d" at INFO,
// and 2.3 ends it with "- COMPLETE" (src/init.cu:174, :599 @ v2.3.7-1): membership and progress
// as from "Init START" / "Init COMPLETE" (horovod/horovod#489). Destroy's suffix-less TRACE
// ("nRanks") is no start.
TEST(NcclLog, PreTwoFourInitLinesAreReadAsStartAndComplete) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "h1:24499:24701 [0] INFO comm 0x55d07fb87c10 rank 0 nranks 16\n"
      "h1:24507:24702 [7] INFO comm 0x55f4de48cc60 rank 7 nranks 16\n"
      "h1:24499:24701 [0] INFO comm 0x55d07fb87c10 rank 0 nranks 16 - COMPLETE\n"
      "h1:24510:24710 [1] INFO comm 0x55d07fb87c99 rank 1 nRanks 4 cudaDev 1 busId 3000\n"
      // Two writers fused: the line does not end where commAlloc's does, so it starts nothing.
      "h1:24511:24711 [0] NCCL INFO comm 0x8fe0500 rank 0 nranks 2 cudaDev 0h1:24512:24712 [1] "
      "NCCL INFO Setting affinity\n",
      "t.log");
  ASSERT_EQ(f.comms.size(), 1u);
  const NcclCommunicator& c = f.comms.begin()->second;
  EXPECT_EQ(c.nranks, 16);
  EXPECT_EQ(c.ranks_started, (std::set<int>{0, 7}));
  EXPECT_EQ(c.ranks_complete, (std::set<int>{0}));
  // A terminal copy that padded the lines with blanks reads the same.
  const NcclRunFacts padded = analyze_nccl_log_text(
      "h1:24499:24701 [0] INFO comm 0x55d07fb87c10 rank 0 nranks 2 \n"
      "h1:24499:24701 [0] INFO comm 0x55d07fb87c10 rank 0 nranks 2 - COMPLETE  \n",
      "t.log");
  ASSERT_EQ(padded.comms.size(), 1u);
  EXPECT_EQ(padded.comms.begin()->second.ranks_complete, (std::set<int>{0}));
}

// NCCL's IB transport sets up queue pairs only for a NET connection, which runs between nodes
// (unless P2P and SHM are both off): a log that kept only the QP failure still shows that much
// (NVIDIA/nccl#622, one rank's "Call to ibv_modify_qp failed" and its trail).
TEST(NcclLog, AnIbQueuePairFailureIsMultiNodeEvidence) {
  const NcclRunFacts f = analyze_nccl_log_text(
      "machine1:196207:196244 [0] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with "
      "error Invalid argument\n"
      "machine1:196207:196244 [0] NCCL INFO transport/net_ib.cc:415 -> 2\n",
      "t.log");
  EXPECT_EQ(f.multi_node_evidence(), "an InfiniBand queue pair to a peer (ibv_modify_qp failed)");
  const NcclRunFacts quiet = analyze_nccl_log_text(
      "machine1:196207:196244 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n", "t.log");
  EXPECT_TRUE(quiet.single_node());
}

}  // namespace
}  // namespace trainready
