#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-tests-wrong-results";

TEST(NcclTestsWrongResults, FiresOnWrongValues) {
  NcclTestsFacts t = parse_nccl_tests(
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "     1048576        262144     float     sum      -1    100.0   10.49   19.66      0    "
      "101.0   10.38   19.46      3\n"
      "# Out of bounds values : 0 OK\n",
      "w.txt");
  RuleOutcome o = run_run_rule(kId, nullptr, &t);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].evidence[0].where.line, 2);
}

TEST(NcclTestsWrongResults, FiresOnOutOfBounds) {
  NcclTestsFacts t = tests_fixture("nccl-tests/deepops-slurm-4x-dgx-a100-ib-all_reduce_perf.txt");
  t.out_of_bounds = 2;
  EXPECT_EQ(run_run_rule(kId, nullptr, &t).findings.size(), 1u);
}

TEST(NcclTestsWrongResults, QuietOnCleanRunsIncludingOldMaxErrorColumn) {
  for (const char* f :
       {"nccl-tests/deepops-slurm-4x-dgx-a100-ib-all_reduce_perf.txt",
        "nccl-tests/coreweave-8node-64xh100-sharp-all_reduce_perf-excerpt.txt",
        "nccl-debug/timezzx-1node-2xa100pcie-nvlink-roce-nccl2.27.7-subsys-all.log"}) {
    NcclTestsFacts t = tests_fixture(f);
    RuleOutcome o = run_run_rule(kId, nullptr, &t);
    EXPECT_FALSE(o.skipped) << f;
    EXPECT_TRUE(o.findings.empty()) << f;
  }
}

TEST(NcclTestsWrongResults, SkipsWithoutValidation) {
  NcclTestsFacts t = parse_nccl_tests(
      "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
      "time   algbw   busbw #wrong\n"
      "     1048576        262144     float     sum      -1    100.0   10.49   19.66    N/A    "
      "101.0   10.38   19.46    N/A\n",
      "n.txt");
  EXPECT_TRUE(run_run_rule(kId, nullptr, &t).skipped);
}

}  // namespace
}  // namespace trainready::test
