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

// nccl-tests' verdict quoted without its '#' (NVIDIA/nccl-tests#131's title) is read; a build
// without the GPU's architecture is a cause while the output does not show nccl-tests v2.15.0 or
// later, which check the launch of their own kernels and stop instead.
TEST(NcclTestsWrongResults, QuotedVerdictAndTheBuildWithoutTheArchitecture) {
  NcclTestsFacts quoted = parse_nccl_tests(
      "./all_reduce_perf: \"Out of bounds values: 50 FAILED\" [2 GPUs]\n", "q.txt");
  ASSERT_TRUE(quoted.out_of_bounds);
  EXPECT_EQ(*quoted.out_of_bounds, 50);
  RuleOutcome o = run_run_rule(kId, nullptr, &quoted);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("NVCC_GENCODE"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("compute_cap"), std::string::npos);

  for (const char* version : {"2.15.0", "2.17.4"}) {
    NcclTestsFacts checked = parse_nccl_tests(std::string("# nccl-tests version ") + version +
                                                  " nccl-headers=22704 nccl-library=22704\n"
                                                  "# Out of bounds values : 12 FAILED\n",
                                              "c.txt");
    RuleOutcome c = run_run_rule(kId, nullptr, &checked);
    ASSERT_EQ(c.findings.size(), 1u) << version;
    EXPECT_EQ(c.findings[0].cause.find("NVCC_GENCODE"), std::string::npos) << version;
  }
  NcclTestsFacts old = parse_nccl_tests(
      "# nccl-tests version 2.13.8 nccl-headers=21602 nccl-library=21602\n"
      "# Out of bounds values : 12 FAILED\n",
      "o.txt");
  RuleOutcome c = run_run_rule(kId, nullptr, &old);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_NE(c.findings[0].cause.find("NVCC_GENCODE"), std::string::npos);
  // The words inside other text that is no verdict ("Out of bounds values" with no count).
  NcclTestsFacts none = parse_nccl_tests(
      "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
      "see the Out of bounds values line below\n",
      "n.txt");
  EXPECT_FALSE(none.out_of_bounds);
}

}  // namespace
}  // namespace trainready::test
