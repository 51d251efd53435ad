#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-tests-busbw-drop";

TEST(NcclTestsBusbwDrop, FiresOnTheGatherDropOff) {
  NcclTestsFacts t = tests_fixture(
      "nccl-debug/nccltests350-2node-a100pcie-roce-ib-gdrdma-gather-dropoff-nccl2.16.5.log");
  RuleOutcome o = run_run_rule(kId, nullptr, &t);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("23.6 GB/s"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("11.0 GB/s"), std::string::npos);
  EXPECT_EQ(o.findings[0].evidence[1].where.line, 136);
}

TEST(NcclTestsBusbwDrop, QuietOnAPlateau) {
  NcclTestsFacts t = tests_fixture("nccl-tests/deepops-k8s-2x-dgx-a100-8xhdr-all_reduce_perf.txt");
  EXPECT_TRUE(run_run_rule(kId, nullptr, &t).findings.empty());
}

}  // namespace
}  // namespace trainready::test
