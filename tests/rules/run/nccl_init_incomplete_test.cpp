#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-init-incomplete";

TEST(NcclInitIncomplete, FiresOnAHangAndNamesTheAbsentRank) {
  RuleOutcome o = log_rule(kId, log_synthetic("init-hang-2node.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& f = o.findings[0];
  EXPECT_NE(f.message.find("3 rank(s) on 2 host(s)"), std::string::npos);
  bool absent = false;
  for (const auto& e : f.evidence)
    absent = absent || e.text.find("never seen in the log: rank 3") != std::string::npos;
  EXPECT_TRUE(absent);
  EXPECT_NE(f.cause.find("node-a"), std::string::npos);
}

TEST(NcclInitIncomplete, QuietWhenEveryRankCompletes) {
  EXPECT_TRUE(
      log_rule(kId, log_fixture("nccl-debug/bigscience-jz-16node-v100-netib-hfi1-nccl2.7.8.log"))
          .findings.empty());
  EXPECT_TRUE(
      log_rule(
          kId,
          log_fixture("nccl-debug/timezzx-1node-2xa100pcie-nvlink-roce-nccl2.27.7-subsys-all.log"))
          .findings.empty());
}

TEST(NcclInitIncomplete, SkipsExcerptsWithoutInitLines) {
  EXPECT_TRUE(log_rule(kId, log_synthetic("version-mismatch.log")).skipped);
}

}  // namespace
}  // namespace trainready::test
