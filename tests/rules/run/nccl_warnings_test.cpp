#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-warnings";

TEST(NcclWarnings, FiresOnOtherWarnAndCudaFailure) {
  RuleOutcome o = log_rule(kId, log_text("h:1:2 [0] init.cc:1 NCCL WARN Something unexpected\n"
                                         "h:1:2 [0] enqueue.cc:2 NCCL WARN Cuda failure 'an "
                                         "illegal memory access was encountered'\n"));
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);  // the CUDA failure
  EXPECT_EQ(o.findings[1].severity, Severity::kWarning);
}

TEST(NcclWarnings, QuietWhenOtherRulesExplainEveryWarn) {
  EXPECT_TRUE(
      log_rule(kId, log_fixture("nccl-debug/mlengineering-azure-2node-ib-error12-timeout.log"))
          .findings.empty());
  EXPECT_TRUE(log_rule(kId, log_synthetic("libibverbs-missing.log")).findings.empty());
}

}  // namespace
}  // namespace trainready::test
