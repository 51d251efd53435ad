#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-topology-file-few-channels";
const char* kLog = "ndv5-ndv4-topo-file-2channels-nccltests.log";

RunOptions sku(const std::string& name) {
  RunOptions o;
  o.sku = name;
  return o;
}

// Lines as NCCL 2.21 prints them (graph/topo.cc NCCL_TOPO_FILE, graph/search.cc
// ncclTopoPrintGraph), on one VM.
std::string one_vm(const std::string& file, const std::string& pattern) {
  return "a:1:2 [0] NCCL INFO NCCL_TOPO_FILE set by environment to " + file +
         "\n"
         "a:1:2 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId "
         "1a000 commId 0xabc - Init START\n"
         "a:1:2 [0] NCCL INFO " +
         pattern +
         "\n"
         "a:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 8 nNodes 1 localRanks 8 localRank 0 MNNVL 0\n";
}

TEST(NcclTopologyFileFewChannels, FiresWithTheVmSizeFromTheNcclTestsDevices) {
  NcclRunFacts log = log_synthetic(kLog);
  NcclTestsFacts t = parse_nccl_tests_file(synthetic_log(kLog));
  RuleOutcome o = run_run_rule(kId, &log, &t);
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_NE(x.message.find("NCCL built 2 channel(s) at 24.0 GB/s per channel from the topology "
                           "file /opt/microsoft/ndv4-topo.xml"),
            std::string::npos)
      << x.message;
  EXPECT_NE(x.message.find("without it, NCCL reaches about 370 GB/s on Standard_ND96isr_H100_v5"),
            std::string::npos)
      << x.message;
  EXPECT_NE(x.cause.find("/opt/microsoft/ndv5-topo.xml"), std::string::npos) << x.cause;
  EXPECT_NE(x.evidence[0].where.line, 0);
}

TEST(NcclTopologyFileFewChannels, FiresWithSku) {
  NcclRunFacts log = log_text(one_vm("/opt/microsoft/ndv4-topo.xml",
                                     "Pattern 4, crossNic 0, nChannels 2, bw 24.000000/24.000000, "
                                     "type PHB/PIX, sameChannels 1"));
  RuleOutcome o = run_run_rule(kId, &log, nullptr, sku("Standard_ND96isr_H100_v5"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("48.0 GB/s"), std::string::npos) << o.findings[0].message;
}

TEST(NcclTopologyFileFewChannels, QuietWhenTheSearchReachesTheSize) {
  NcclRunFacts log = log_text(one_vm("/opt/microsoft/ndv5-topo.xml",
                                     "Pattern 4, crossNic 0, nChannels 16, bw 40.000000/40.000000, "
                                     "type NVL/PIX, sameChannels 0"));
  RuleOutcome o = run_run_rule(kId, &log, nullptr, sku("Standard_ND96isr_H100_v5"));
  EXPECT_FALSE(o.skipped);
  EXPECT_TRUE(o.findings.empty());
}

TEST(NcclTopologyFileFewChannels, DoesNotApplyWithoutAUserFile) {
  NcclRunFacts log =
      log_fixture("nccl-debug/timezzx-1node-2xa100pcie-nvlink-roce-nccl2.27.7-subsys-all.log");
  RuleOutcome o = run_run_rule(kId, &log, nullptr);
  EXPECT_TRUE(o.findings.empty());
  EXPECT_FALSE(o.not_applicable.empty());
}

TEST(NcclTopologyFileFewChannels, SkippedWithoutTheVmSize) {
  NcclRunFacts log = log_synthetic(kLog);
  RuleOutcome o = run_run_rule(kId, &log, nullptr);
  EXPECT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("--sku"), std::string::npos);
}

}  // namespace
}  // namespace trainready::test
