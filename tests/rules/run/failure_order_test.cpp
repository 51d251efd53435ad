// The first failure in time before the consequences that follow it (issue 30 item 5):
// src/engine/failure_order.h over findings built in code, and the whole chain (log -> facts ->
// rules -> engine) over logs written here in the shapes NCCL prints.
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/failure_order.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

bool says(const Finding& f, const std::string& what) {
  for (const Evidence& e : f.evidence)
    if (e.text.find(what) != std::string::npos) return true;
  return false;
}

// The shape of NVIDIA/nccl-tests#24 (NCCL 2.4, RoCE without NCCL_IB_GID_INDEX): an IB
// completion error on both hosts, the communicators destroyed, then on one of the processes a
// CUDA call sees an illegal address. Hosts and pids are this test's own.
const char* kIbThenIllegalAddress =
    "nodeb:4101:4170 [0] NCCL INFO NCCL version 2.4.7+cuda10.0\n"
    "nodeb:4101:4170 [0] transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error "
    "12, opcode 1, len 0, vendor err 129\n"
    "nodeb:4101:4170 [0] NCCL INFO include/net.h:34 -> 2\n"
    "nodeb:4101:4170 [0] NCCL INFO transport/net.cu:537 -> 2\n"
    "nodea:3300:3377 [0] transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error "
    "12, opcode 1, len 0, vendor err 129\n"
    "nodea:3300:3377 [0] NCCL INFO include/net.h:34 -> 2\n"
    "nodeb:4101:4101 [0] NCCL INFO Destroyed comm 0x7f24c4001af0 rank 4\n"
    "nodeb:4101:4101 [1] init.cu:194 NCCL WARN Cuda failure 'an illegal memory access was "
    "encountered'\n"
    "nodeb:4101:4101 [1] NCCL INFO init.cu:1143 -> 1\n";

TEST(FailureOrder, TheFirstFailureInOneProcessComesBeforeTheStickyCudaErrorAfterIt) {
  const auto findings = judge_log(kIbThenIllegalAddress);
  ASSERT_GE(findings.size(), 2u);
  const Finding& first = findings[0];
  EXPECT_EQ(first.rule_id, "nccl-ib-completion-error");
  EXPECT_TRUE(says(first, "first failure in time: t.log:2"));
  EXPECT_TRUE(says(first, "nccl-known-signature"));
  EXPECT_NE(first.fix.find("Confirm the order"), std::string::npos);
  const Finding& later = findings[1];
  EXPECT_EQ(later.rule_id, "nccl-known-signature");
  EXPECT_NE(later.message.find("illegal memory access"), std::string::npos);
  EXPECT_TRUE(says(later, "follows an earlier failure: nccl-ib-completion-error"));
}

TEST(FailureOrder, ASingleFailureKeepsItsPlaceAndSaysNothingOfOrder) {
  const auto findings = judge_log(
      "nodeb:4101:4101 [1] init.cu:194 NCCL WARN Cuda failure 'an illegal memory access was "
      "encountered'\n"
      "nodeb:4101:4101 [1] NCCL INFO init.cu:1143 -> 1\n");
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].rule_id, "nccl-known-signature");
  EXPECT_NE(findings[0].message.find("illegal memory access"), std::string::npos);
  for (const Finding& f : findings) {
    EXPECT_FALSE(says(f, "first failure in time")) << f.rule_id;
    EXPECT_FALSE(says(f, "follows an earlier failure")) << f.rule_id;
  }
}

// Two ranks on two hosts, NCCL 2.26+'s WARN timestamps: the line order of the merged log is
// not the order in time. The stamps decide which failure came first.
std::string two_ranks(const char* ib_time, const char* cuda_time) {
  return std::string("[") + ib_time +
         "] hostb:4101:4170 [0] transport/net_ib.cc:1909 NCCL WARN NET/IB : Got completion "
         "from peer 10.0.0.4<33057> with status=12 opcode=0 len=0 vendor err 129 (Send) "
         "localGid ::ffff:10.0.0.5 remoteGids::ffff:10.0.0.4\n"
         "[" +
         cuda_time +
         "] hosta:3300:3300 [1] enqueue.cc:1600 NCCL WARN Cuda failure 'an illegal memory "
         "access was encountered'\n";
}

TEST(FailureOrder, ALaterLineThatCameFirstByItsTimestampStaysTheRoot) {
  // The illegal address on hosta came six seconds before hostb's completion error (its peer was
  // gone): it is the first failure, and nothing moves above it.
  const auto findings = judge_log(two_ranks("2025-09-09 23:51:30", "2025-09-09 23:51:24"));
  ASSERT_GE(findings.size(), 2u);
  EXPECT_EQ(findings[0].rule_id, "nccl-known-signature");
  EXPECT_NE(findings[0].message.find("illegal memory access"), std::string::npos);
  EXPECT_FALSE(says(findings[0], "follows an earlier failure"));
}

TEST(FailureOrder, TimestampsOrderFailuresOfDifferentRanks) {
  // The same two lines with the completion error first in time: it comes first, although the
  // two processes differ and it is not the first line.
  const auto findings = judge_log(two_ranks("2025-09-09 23:51:24", "2025-09-09 23:51:30"));
  ASSERT_GE(findings.size(), 2u);
  EXPECT_EQ(findings[0].rule_id, "nccl-ib-completion-error");
  EXPECT_TRUE(says(findings[0], "at 2025-09-09 23:51:24.000000"));
}

TEST(FailureOrder, WithoutTimestampsTwoProcessesAreNotOrderedByLine) {
  std::string text = two_ranks("x", "y");
  // Drop the stamps: "[x] " and "[y] " are not prefixes a timestamp reader knows; take them off.
  for (const char* stamp : {"[x] ", "[y] "}) text.erase(text.find(stamp), 4);
  const auto findings = judge_log(text);
  ASSERT_GE(findings.size(), 2u);
  EXPECT_EQ(findings[0].rule_id, "nccl-known-signature");
  EXPECT_FALSE(says(findings[0], "follows an earlier failure"));
}

Finding failure(const std::string& rule, int line, const std::string& process, bool consequence,
                Severity s = Severity::kError) {
  Finding f;
  f.rule_id = rule;
  f.severity = s;
  f.onset.where = {"a.log", line};
  f.onset.process = process;
  f.consequence = consequence;
  return f;
}

TEST(FailureOrder, OnsetsCompareByTimeElseByLineInOneProcess) {
  FailureOnset a{{"a.log", 10}, {}, "h:1"}, b{{"a.log", 20}, {}, "h:1"};
  EXPECT_EQ(compare_onsets(a, b), -1);
  EXPECT_EQ(compare_onsets(b, a), 1);
  b.process = "h:2";
  EXPECT_EQ(compare_onsets(a, b), 0);  // two processes, no stamps: the log cannot tell
  b.process = "";                      // a line without a process: the file's own stream
  EXPECT_EQ(compare_onsets(a, b), -1);
  b.where.source = "b.log";
  EXPECT_EQ(compare_onsets(a, b), 0);
  a.time = {2025, 1000};
  b.time = {0, 500};  // a yearless stamp (glog) compares within the year
  EXPECT_EQ(compare_onsets(a, b), 1);
  EXPECT_EQ(compare_onsets(a, FailureOnset{}), 0);
}

TEST(FailureOrder, OnlyAnEarlierFailureMovesAboveAConsequence) {
  std::vector<Finding> v{failure("consequence", 30, "h:1", true), failure("context", 0, "", false),
                         failure("later", 40, "h:1", false),
                         failure("root", 20, "h:1", false, Severity::kWarning)};
  v[1].onset = {};
  put_first_failure_first(v);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].rule_id, "root");
  EXPECT_EQ(v[0].severity, Severity::kError);  // the run failed from it
  EXPECT_EQ(v[1].rule_id, "consequence");
  EXPECT_EQ(v[2].rule_id, "context");
  EXPECT_EQ(v[3].rule_id, "later");
}

TEST(FailureOrder, AConsequenceWithNothingBeforeItStays) {
  std::vector<Finding> v{failure("consequence", 10, "h:1", true),
                         failure("other", 40, "h:2", false), failure("later", 20, "h:1", false)};
  put_first_failure_first(v);
  EXPECT_EQ(v[0].rule_id, "consequence");
  EXPECT_TRUE(v[0].evidence.empty());
}

}  // namespace
}  // namespace trainready::test
