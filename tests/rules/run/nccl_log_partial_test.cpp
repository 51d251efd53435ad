#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-log-partial";

TEST(NcclLogPartial, FiresWhenOneHostsLogIsGiven) {
  RuleOutcome o = log_rule(
      kId,
      log_fixture(
          "nccl-debug/nccltests350-2node-a100pcie-roce-ib-gdrdma-gather-dropoff-nccl2.16.5.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  EXPECT_NE(o.findings[0].message.find("1 of them"), std::string::npos);
}

TEST(NcclLogPartial, QuietWhenAllRanksAreThere) {
  EXPECT_TRUE(log_rule(kId, log_synthetic("azure-ndv5-gdrdma-2node.log")).findings.empty());
}

TEST(NcclLogPartial, LeavesHangsToInitIncomplete) {
  EXPECT_TRUE(log_rule(kId, log_synthetic("init-hang-2node.log")).findings.empty());
}

}  // namespace
}  // namespace trainready::test
