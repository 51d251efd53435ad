// What the NCCL log analyser reads about performance (issue 14, Depth): the topology search
// results, each communicator's ring channels, the algorithm and protocol chosen per size, a user
// graph file, and an nccl-tests table in the same log. Real captures first; synthetic lines are
// written in the exact format NCCL prints (source lines cited per test).
#include <gtest/gtest.h>

#include "parsers/nccl_log.h"
#include "parsers/nccl_tests.h"
#include "queries/busbw_from_log.h"
#include "support/paths.h"

namespace trainready {
namespace {

using test::fixture;
using test::synthetic_log;

NcclRunFacts analyze(const std::string& rel) { return analyze_nccl_logs({fixture(rel)}); }

TEST(NcclLogGraph, Timezzx227SearchChannelsAndTuning) {
  // Real capture: NCCL 2.27.7, 2 x A100 PCIe with an NVLink bridge, NCCL_DEBUG_SUBSYS=ALL.
  NcclRunFacts f =
      analyze("nccl-debug/timezzx-1node-2xa100pcie-nvlink-roce-nccl2.27.7-subsys-all.log");
  ASSERT_EQ(f.comms.size(), 1u);
  const NcclCommunicator& c = f.comms.begin()->second;
  EXPECT_EQ(c.ring_channels, 24);  // "Channel 23/24 :    0   1"
  EXPECT_EQ(c.graph_file_channels, -1);
  // Both ranks printed the same ring and tree results: one entry each, two ranks.
  ASSERT_EQ(f.searches.size(), 2u);
  const NcclGraphSearch* ring = f.ring_search();
  ASSERT_NE(ring, nullptr);
  EXPECT_EQ(ring->comm, "0x54fe282d32a87d85");
  EXPECT_EQ(ring->channels, 12);
  EXPECT_DOUBLE_EQ(ring->bw_intra, 20.0);
  EXPECT_DOUBLE_EQ(ring->bw_inter, 20.0);
  EXPECT_EQ(ring->type_intra, "NVL");
  EXPECT_EQ(ring->type_inter, "PIX");
  EXPECT_EQ(ring->cross_nic, 0);
  EXPECT_EQ(ring->same_channels, 1);
  EXPECT_EQ(ring->ranks, 2u);
  EXPECT_EQ(ring->line.where.line, 83);
  // 2.24+ format: "AllReduce: 8589934592 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}"
  auto it = f.tuning.find({"AllReduce", 8589934592ull});
  ASSERT_NE(it, f.tuning.end());
  EXPECT_EQ(it->second.algo, "RING");
  EXPECT_EQ(it->second.proto, "SIMPLE");
  EXPECT_EQ(it->second.channel_lo, 0);
  EXPECT_EQ(it->second.channel_hi, 23);
  EXPECT_GE(it->second.count, 1u);
  // The nccl-tests table in the same file.
  EXPECT_NE(f.nccl_tests_table_file.find("timezzx"), std::string::npos);
  EXPECT_EQ(f.unknown_lines, 0u);
}

TEST(NcclLogGraph, NcclTests350TwoNodeSearchOverPci) {
  // Real capture: NCCL 2.16.5, 2 nodes x 1 A100 PCIe, RoCE; ring search LOC/PHB.
  NcclRunFacts f = analyze(
      "nccl-debug/nccltests350-2node-a100pcie-roce-ib-gdrdma-gather-dropoff-nccl2.16.5.log");
  const NcclGraphSearch* ring = f.ring_search();
  ASSERT_NE(ring, nullptr);
  EXPECT_EQ(ring->channels, 1);
  EXPECT_DOUBLE_EQ(ring->bw_intra, 24.0);
  EXPECT_EQ(ring->type_intra, "LOC");
  EXPECT_EQ(ring->type_inter, "PHB");
  EXPECT_EQ(f.comms.begin()->second.ring_channels, 2);  // "Channel 01/02 :    0   1"
  // The tree search with 0 channels is kept: it says the tree found no path.
  bool empty_tree = false;
  for (const auto& g : f.searches) empty_tree = empty_tree || (g.pattern == 3 && g.channels == 0);
  EXPECT_TRUE(empty_tree);
  EXPECT_FALSE(f.nccl_tests_table_file.empty());
}

TEST(NcclLogGraph, OldSpeedFormatBeforeInitComplete) {
  // NCCL 2.7-2.15 (graph/search.cc v2.7.8-1): "speed %f/%f"; no "Init START", the communicator
  // line comes after the search, and rank 0 lists rings as "Channel %02d/%02d : " + " %3d".
  NcclRunFacts f = analyze_nccl_log_text(
      "h:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, speed 12.000000/12.000000, type "
      "PHB/PIX, sameChannels 1\n"
      "h:1:2 [0] NCCL INFO Channel 00/04 :    0   1\n"
      "h:1:2 [0] NCCL INFO Channel 03/04 :    0   1\n"
      "h:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1c000 - Init COMPLETE\n",
      "old.log");
  ASSERT_EQ(f.comms.size(), 1u);
  EXPECT_EQ(f.comms.begin()->second.ring_channels, 4);
  ASSERT_EQ(f.searches.size(), 1u);
  EXPECT_EQ(f.searches[0].comm, "nranks=2");
  EXPECT_DOUBLE_EQ(f.searches[0].bw_intra, 12.0);
  EXPECT_EQ(f.searches[0].type_intra, "PHB");
}

TEST(NcclLogGraph, NumericTuningLinesOf221And223) {
  // enqueue.cc v2.21.5-1: "%ld Bytes -> Algo %d proto %d time %f" (rank 0, INFO TUNING);
  // v2.23.4-1 adds "%s: " before it. Numbers per nccl_common.h: algo 1 RING, 4 NVLS; proto 2
  // SIMPLE, 1 LL128.
  NcclRunFacts f = analyze_nccl_log_text(
      "h:1:1 [0] NCCL INFO 1073741824 Bytes -> Algo 1 proto 2 time 38424.426869\n"
      "h:1:1 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo 4 proto 1 time 21.500000\n"
      "h:1:1 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo 4 proto 1 time 21.500000\n",
      "n.log");
  ASSERT_EQ(f.tuning.size(), 2u);
  const NcclTuningChoice& a = f.tuning.at({"", 1073741824ull});
  EXPECT_EQ(a.algo, "RING");
  EXPECT_EQ(a.proto, "SIMPLE");
  EXPECT_EQ(a.channel_lo, -1);
  const NcclTuningChoice& b = f.tuning.at({"AllReduce", 1048576ull});
  EXPECT_EQ(b.algo, "NVLS");
  EXPECT_EQ(b.proto, "LL128");
  EXPECT_EQ(b.count, 2u);
  EXPECT_TRUE(f.algorithms.count("NVLS"));
  EXPECT_EQ(f.unknown_lines, 0u);
}

TEST(NcclLogGraph, GraphFileChannelsAndUserTopologyFile) {
  // graph/search.cc: "NCCL_GRAPH_FILE set by environment to %s", then "Search %d : %d channels
  // loaded from XML graph"; graph/topo.cc: "NCCL_TOPO_FILE set by environment to %s".
  NcclRunFacts f = analyze_nccl_log_text(
      "h:1:2 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /opt/microsoft/ndv4-topo.xml\n"
      "h:1:2 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId "
      "1a000 commId 0xabc - Init START\n"
      "h:1:2 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to /tmp/graph.xml\n"
      "h:1:2 [0] NCCL INFO Search 0 : 2 channels loaded from XML graph\n"
      "h:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 24.000000/24.000000, type "
      "PHB/PIX, sameChannels 1\n",
      "g.log");  // init never completes: the graph goes to the communicator the rank started
  ASSERT_EQ(f.comms.size(), 1u);
  EXPECT_EQ(f.comms.at("0xabc").graph_file_channels, 2);
  ASSERT_EQ(f.searches.size(), 1u);
  EXPECT_EQ(f.searches[0].comm, "0xabc");
  EXPECT_EQ(f.env.at("NCCL_TOPO_FILE").value, "/opt/microsoft/ndv4-topo.xml");
  EXPECT_EQ(f.env.at("NCCL_GRAPH_FILE").value, "/tmp/graph.xml");
  EXPECT_EQ(f.unknown_lines, 0u);
}

TEST(NcclLogGraph, SyntheticNdv5WithTheNdv4TopologyFile) {
  NcclRunFacts f =
      analyze_nccl_logs({synthetic_log("ndv5-ndv4-topo-file-2channels-nccltests.log")});
  ASSERT_EQ(f.comms.size(), 1u);
  EXPECT_EQ(f.comms.begin()->second.ring_channels, 4);
  const NcclGraphSearch* ring = f.ring_search();
  ASSERT_NE(ring, nullptr);
  EXPECT_EQ(ring->channels, 2);
  EXPECT_EQ(ring->ranks, 8u);
  EXPECT_EQ(f.tuning.at({"", 8589934592ull}).algo, "RING");
  EXPECT_FALSE(f.nccl_tests_table_file.empty());
  EXPECT_EQ(f.unknown_lines, 0u);
}

TEST(NcclLogGraph, InterNodeEvidenceFromARealPeerAddress) {
  // Real capture (ml-engineering, Azure, 2 nodes): only one host prints, but the IB completion
  // error names a peer on another address.
  NcclRunFacts f = analyze("nccl-debug/mlengineering-azure-2node-ib-error12-timeout.log");
  EXPECT_EQ(f.hosts().size(), 1u);
  EXPECT_TRUE(f.multi_node());
  EXPECT_NE(f.multi_node_evidence().find("10.2.0.5"), std::string::npos);
}

TEST(NcclLogGraph, TheTableIsExplainedWhateverSuffixNcclTestsBuiltItWith) {
  // nccl-tests built with MPI=1 names itself all_reduce_perf_mpi: the same collective as NCCL's
  // AllReduce tuning line at the table's largest size.
  const std::string path =
      fixture("nccl-debug/timezzx-1node-2xa100pcie-nvlink-roce-nccl2.27.7-subsys-all.log");
  const NcclRunFacts log = analyze_nccl_logs({path});
  for (const char* name : {"all_reduce_perf", "all_reduce_perf_mpi"}) {
    NcclTestsFacts t = parse_nccl_tests_file(path);
    t.collective = name;
    bool chose = false;
    for (const std::string& l : explain_busbw_from_log(t, log).lines)
      chose = chose || l.find("NCCL chose RING/SIMPLE") != std::string::npos;
    EXPECT_TRUE(chose) << name;
  }
}

}  // namespace
}  // namespace trainready
