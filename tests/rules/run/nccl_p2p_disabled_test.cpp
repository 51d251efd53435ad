#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-p2p-disabled";

TEST(NcclP2pDisabled, FiresOnTheVariable) {
  RuleOutcome o = log_rule(
      kId,
      log_fixture("nccl-debug/nccl-ebpf-1node-rtx5090-tuning-table-algo-select-nccl2.29.7.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].evidence[0].where.line, 3);
}

TEST(NcclP2pDisabled, FiresOnShmOnlyConnections) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/raddet-1node-2gpu-noib-socket-bond0-shm.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("SHM"), std::string::npos);
}

TEST(NcclP2pDisabled, QuietWithP2p) {
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log"))
                  .findings.empty());
}

}  // namespace
}  // namespace trainready::test
