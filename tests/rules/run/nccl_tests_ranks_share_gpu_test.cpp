#include <gtest/gtest.h>

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

}  // namespace
}  // namespace trainready::test
