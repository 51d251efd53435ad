#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-collective-timeout";

TEST(NcclCollectiveTimeout, FiresOnWatchdogWithDesync) {
  RuleOutcome o = log_rule(
      kId, log_fixture("nccl-debug/mlengineering-pytorch-watchdog-collective-timeout-desync.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].message, "Collective ALLREDUCE #2 timed out after 8000 ms on rank 0");
  EXPECT_NE(o.findings[0].cause.find("Rank(s) 1 never joined"), std::string::npos);
}

TEST(NcclCollectiveTimeout, MapsLaggingRanksToHosts) {
  NcclRunFacts f = log_synthetic("azure-ndv5-gdrdma-2node.log");
  NcclRunFacts w =
      log_fixture("nccl-debug/mlengineering-pytorch-watchdog-collective-timeout-desync.log");
  f.timeouts = w.timeouts;
  f.lagging = w.lagging;
  f.lagging[0].rank = 9;
  RuleOutcome o = log_rule(kId, f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("(on ndv5-b)"), std::string::npos);
}

TEST(NcclCollectiveTimeout, QuietWithoutTimeouts) {
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log"))
                  .findings.empty());
}

}  // namespace
}  // namespace trainready::test
