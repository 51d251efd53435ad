#include <gtest/gtest.h>

#include "parsers/nccl_tests.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-tests-ranks-share-gpu";

TEST(NcclTestsRanksShareGpu, FiresWhenTwoRanksUseOneGpu) {
  NcclTestsFacts t =
      tests_fixture("nccl-tests/nccl-ebpf-2rank-socket-forced-tag-output-all_reduce_perf.txt");
  RuleOutcome o = run_run_rule(kId, nullptr, &t);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].evidence.size(), 2u);
}

TEST(NcclTestsRanksShareGpu, QuietWithOneRankPerGpu) {
  for (const char* f :
       {"nccl-debug/timezzx-1node-2xa100pcie-nvlink-roce-nccl2.27.7-subsys-all.log",
        "nccl-debug/nccltests350-2node-a100pcie-roce-ib-gdrdma-gather-dropoff-nccl2.16.5.log"}) {
    NcclTestsFacts t = tests_fixture(f);
    EXPECT_TRUE(run_run_rule(kId, nullptr, &t).findings.empty()) << f;
  }
}

// `trainready bench` over MPI runs one rank per core on host memory: nothing to share.
TEST(NcclTestsRanksShareGpu, QuietForMpiRanksOnHostMemory) {
  NcclTestsFacts t = parse_nccl_tests(
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 1 iters: 1\n"
      "# Using devices\n"
      "#  Rank 0 Group  0 Pid 10 on vm device -1 [cpu] host memory (MPI)\n"
      "#  Rank 1 Group  0 Pid 11 on vm device -1 [cpu] host memory (MPI)\n"
      "#       size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  "
      "#wrong\n"
      "           8      2  float   sum    -1  6.0   0.00   0.00       0   6.0   0.00   0.00       "
      "0\n"
      "# Avg bus bandwidth    : 0\n",
      "bench");
  ASSERT_EQ(t.devices.size(), 2u);
  EXPECT_TRUE(run_run_rule(kId, nullptr, &t).findings.empty());
}

}  // namespace
}  // namespace trainready::test
