#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-message";

// A failure trail in the InfiniBand transport: ncclSystemError's meaning, the failing file and
// its subsystem, the fix and the experiment; the WARN before it quoted.
TEST(NcclMessage, FiresOnATrailAndNamesTheFailingTransport) {
  RuleOutcome o =
      log_rule(kId, log_text("vm-a:100:100 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
                             "vm-a:100:120 [0] NCCL INFO transport/net_ib.cc:1234 -> 2\n"
                             "vm-a:100:120 [0] NCCL INFO transport/net.cc:700 -> 2\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_NE(x.message.find("ncclSystemError"), std::string::npos) << x.message;
  EXPECT_NE(x.message.find("[trail-system-error]"), std::string::npos);
  bool file = false;
  for (const Evidence& e : x.evidence)
    file = file || e.text == "failing file transport/net_ib.cc:1234 (ib-verbs)";
  EXPECT_TRUE(file);
  EXPECT_NE(x.fix.find("Confirm:"), std::string::npos);
  EXPECT_NE(x.cause.find("src/nccl.h.in"), std::string::npos);
}

TEST(NcclMessage, QuietOnAHealthyRunAndOnSignatureLines) {
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log"))
                  .findings.empty());
  // The trail after a WARN follows it: the WARN's reading is the finding, not the trail's.
  const RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/mlengineering-azure-2node-ib-error12-timeout.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("[ib-completion-error]"), std::string::npos);
  // The socket trail is nccl-known-signature's reading, not this rule's.
  EXPECT_TRUE(log_rule(kId, log_text("vm-a:100:120 [0] NCCL INFO misc/socket.cc:564 -> 2\n"))
                  .findings.empty());
}

}  // namespace
}  // namespace trainready::test
