#include <gtest/gtest.h>

#include "parsers/nccl_tests.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-tests-one-rank";

// NVIDIA/nccl-tests#249 as pasted from the rendered page: the '#' lines lost their '#', the
// collective is named only by the command line, and one A10G is the only rank.
TEST(NcclTestsOneRank, FiresOnOneRankOfAllReduce) {
  NcclTestsFacts t = tests_fixture("nccl-tests/nccltests249-g5-1xa10g-one-rank-markdown-paste.txt");
  EXPECT_EQ(t.collective, "all_reduce");
  ASSERT_EQ(t.devices.size(), 1u);  // " Rank  0 Group  0 Pid ..." read without its '#'
  EXPECT_EQ(t.n_gpus, 1);           // " nThread 1 nGpus 1 ..." likewise
  const RuleOutcome o = run_run_rule(kId, nullptr, &t);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  EXPECT_NE(o.findings[0].cause.find("2(n-1)/n"), std::string::npos);
}

// Rows say it where no line names the collective: busbw 0 beside algbw above 0.
TEST(NcclTestsOneRank, ReadsTheRowsWhenTheCollectiveIsNotNamed) {
  const std::string head =
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: 20\n"
      "#  Rank  0 Group  0 Pid    127 on  vm0 device  0 [0x00] NVIDIA A10G\n"
      "#       size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  "
      "#wrong\n";
  NcclTestsFacts zero = parse_nccl_tests(
      head +
          "        128     32  float   sum    -1  2.93   0.04   0.00       0  0.30   0.43   "
          "0.00       0\n",
      "rows");
  EXPECT_EQ(run_run_rule(kId, nullptr, &zero).findings.size(), 1u);
  // broadcast's factor is 1 at any rank count: busbw is algbw, so nothing to say.
  NcclTestsFacts bcast = parse_nccl_tests(
      head +
          "        128     32  float   sum    -1  2.93   0.04   0.04       0  0.30   0.43   "
          "0.43       0\n",
      "broadcast_perf.txt");
  EXPECT_TRUE(run_run_rule(kId, nullptr, &bcast).findings.empty());
}

TEST(NcclTestsOneRank, QuietWithSeveralRanksOrProcesses) {
  NcclTestsFacts eight =
      tests_fixture("nccl-tests/superbench-1node-8xa100-40g-all_reduce_perf.txt");
  EXPECT_TRUE(run_run_rule(kId, nullptr, &eight).findings.empty());
  // Rank 0 on two hosts: nccl-tests-separate-jobs' reading, not this one's.
  NcclTestsFacts two = tests_fixture("nccl-tests/nccltests17-2x-m60-rank0-twice-excerpt.txt");
  EXPECT_TRUE(run_run_rule(kId, nullptr, &two).findings.empty());
}

// Only nccl-tests' own texts are read without their '#': prose that starts with the same
// words is not.
TEST(NcclTestsOneRank, OnlyNcclTestsOwnLinesAreReadWithoutTheirHash) {
  NcclTestsFacts t = parse_nccl_tests(
      "Rank 0 is slow today, see the dashboard\n"
      "nThread count is 1 on this host\n"
      " Using devices\n"
      "  Rank  1 Group  0 Pid  42 on  h1 device  1 [0x3b] NVIDIA H100\n"
      "#       size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  "
      "#wrong\n"
      "        128     32  float   sum    -1  2.93   0.04   0.00       0  0.30   0.43   0.00    "
      "   0\n",
      "prose");
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].rank, 1);
  EXPECT_EQ(t.n_threads, 0);
}

}  // namespace
}  // namespace trainready::test
