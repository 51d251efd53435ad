#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-ibv-modify-qp-failed";

TEST(NcclIbvModifyQpFailed, FiresAndNamesTheError) {
  RuleOutcome o = log_rule(kId, log_synthetic("ibv-modify-qp-roce.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("Connection timed out"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("NCCL_IB_GID_INDEX"), std::string::npos);
}

TEST(NcclIbvModifyQpFailed, QuietOtherwise) {
  EXPECT_TRUE(log_rule(kId, log_synthetic("gdr-no-module.log")).findings.empty());
}

}  // namespace
}  // namespace trainready::test
