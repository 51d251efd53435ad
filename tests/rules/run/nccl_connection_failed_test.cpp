#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-connection-failed";

TEST(NcclConnectionFailed, FiresOnConnectionRefused) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/mlengineering-jz-socket-connect-refused-warn.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("10.148.3.247<56821>"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("already exited"), std::string::npos);
}

TEST(NcclConnectionFailed, FiresOnRemoteExit) {
  RuleOutcome o = log_rule(kId, log_text("h:1:2 [0] proxy.cc:1 NCCL WARN [Service thread] remote "
                                         "process exited or there was a network error\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("died"), std::string::npos);
}

TEST(NcclConnectionFailed, QuietOtherwise) {
  EXPECT_TRUE(
      log_rule(kId, log_fixture("nccl-debug/mlengineering-azure-2node-ib-error12-timeout.log"))
          .findings.empty());
}

}  // namespace
}  // namespace trainready::test
