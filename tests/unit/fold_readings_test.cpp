// Folding a supporting reading into the finding that cites the same line
// (src/engine/fold_readings.h): where it goes, whose fix wins, and that a fix is said once.
#include "engine/fold_readings.h"

#include <gtest/gtest.h>

namespace trainready::test {
namespace {

Finding cites(const std::string& rule, int line, const std::string& fix, bool general) {
  Finding f;
  f.rule_id = rule;
  f.message = rule;
  f.fix = fix;
  f.general_fix = general;
  f.evidence.push_back({"the line", {"t.log", line}});
  return f;
}

TEST(FoldReadings, AReadingJoinsTheFindingThatCitesItsLine) {
  std::vector<Finding> v = {cites("nccl-connection-failed", 1, "general", true),
                            cites("nccl-message", 1, "decided", false),
                            cites("nccl-message", 2, "elsewhere", false)};
  fold_same_evidence(v);
  ASSERT_EQ(v.size(), 2u);         // the reading of line 2 cites no other finding's line
  EXPECT_EQ(v[0].fix, "decided");  // a decided fix takes the general one's place
  EXPECT_FALSE(v[0].general_fix);
  EXPECT_EQ(v[0].evidence.back().text, "supporting reading (nccl-message): nccl-message");
}

// Two readings of one line whose context decided the same fix (nccl-message's
// socket-closed-by-remote-peer and nccl-known-signature's bootstrap-socket-failure both read
// socketFinalizeAccept's magic receive as NVIDIA/nccl#1612): it is said once; another is added.
TEST(FoldReadings, AFixAlreadySaidIsNotSaidAgain) {
  std::vector<Finding> v = {cites("nccl-connection-failed", 1, "general", true),
                            cites("nccl-message", 1, "Upgrade NCCL to 2.27.3.", false),
                            cites("nccl-known-signature", 1, "Upgrade NCCL to 2.27.3.", false),
                            cites("nccl-known-signature", 1, "Check the port scanner.", false)};
  fold_same_evidence(v);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].fix, "Upgrade NCCL to 2.27.3. Check the port scanner.");
}

}  // namespace
}  // namespace trainready::test
