#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-system-error";

TEST(NcclSystemError, FiresOnPyTorchsUnhandledSystemError) {
  RuleOutcome o = log_rule(
      kId, log_fixture("nccl-debug/mlengineering-jz-unhandled-system-error-nccl2.7.8.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].evidence.size(), 2u);
  EXPECT_EQ(o.findings[0].evidence[1].where.line, 2);
}

TEST(NcclSystemError, QuietOtherwise) {
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/raddet-1node-2gpu-noib-socket-bond0-shm.log"))
                  .findings.empty());
}

}  // namespace
}  // namespace trainready::test
