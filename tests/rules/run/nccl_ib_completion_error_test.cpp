#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-ib-completion-error";

TEST(NcclIbCompletionError, FiresOnErrorTwelveAndPointsAtPartitions) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/mlengineering-azure-2node-ib-error12-timeout.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("IBV_WC_RETRY_EXC_ERR"), std::string::npos);
  // RoCE's path MTU follows the interface: a switch hop with a smaller MTU drops full packets.
  EXPECT_NE(o.findings[0].cause.find("an MTU larger than a switch on the path forwards"),
            std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("ping -M do"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("one scale set"), std::string::npos);
  EXPECT_EQ(o.findings[0].evidence[0].where.line, 1);
}

TEST(NcclIbCompletionError, FiresOnTheNewerFormat) {
  RuleOutcome o = log_rule(kId, log_synthetic("ib-completion-status-new.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("vendor err 129"), std::string::npos);
}

TEST(NcclIbCompletionError, QuietOnAHealthyLog) {
  EXPECT_TRUE(log_rule(kId, log_synthetic("azure-ndv5-gdrdma-2node.log")).findings.empty());
}

TEST(NcclIbCompletionError, ErrorFourIsReadAsAcsOnTheGdrPath) {
  RuleOutcome o = log_rule(kId, log_fixture("nccl-debug/nccl928-ib-error4-vendor81-acs.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("IBV_WC_LOC_PROT_ERR"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("ACS"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("NCCL_NET_GDR_LEVEL=0"), std::string::npos);
  EXPECT_GT(o.findings[0].rank, 80);
}

TEST(NcclIbCompletionError, PreTwoTwelveFormatWithoutPeer) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/nccl523-ib-error4-vendor81-acs-nccl2.9.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("ACS"), std::string::npos);
}

// A WARN retyped into a title without its "with" and peer (NVIDIA/nccl#1170) still carries the
// status; a line that only names completions does not fire.
TEST(NcclIbCompletionError, ReadsTheWarnRetypedWithoutWith) {
  RuleOutcome o =
      log_rule(kId, log_text("training failed: NCCL WARN NET/IB Got completion error 12\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("IBV_WC_RETRY_EXC_ERR"), std::string::npos);
  EXPECT_TRUE(log_rule(kId, log_text("vm:1:2 [0] NCCL WARN NET/IB : Got completion event\n"))
                  .findings.empty());
}

}  // namespace
}  // namespace trainready::test
