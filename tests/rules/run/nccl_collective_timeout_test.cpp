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

// IGNF/myria3d#123: a tqdm bar shows data preparation projected past the 30-min timeout the
// other ranks waited in ALLREDUCE #3.
TEST(NcclCollectiveTimeout, AStepLongerThanTheTimeoutIsTheReading) {
  RuleOutcome o = log_rule(kId, analyze_nccl_logs({std::string(TR_TEST_DATA) +
                                                   "/nccl-shapes/myria3d123-dataprep-progress-"
                                                   "then-watchdog-timeout.log"}));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_NE(x.cause.find("first ones (SeqNum 3): the progress bar 'Preparing test set...' shows "
                         "a step of 24.9 min so far with 30.5 min to go, longer than the 30.0 min"),
            std::string::npos)
      << x.cause;
  EXPECT_NE(x.fix.find("timeout=datetime.timedelta"), std::string::npos);
  EXPECT_EQ(x.evidence.back().where.line, 3);
  // A bar that ends well within the timeout is not the reading.
  RuleOutcome short_bar = log_rule(
      kId, log_text("Tokenizing: 100%|##########| 10/10 [00:05<00:00,  2.00it/s]\n"
                    "[E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation "
                    "timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
                    "Timeout(ms)=1800000) ran for 1800008 milliseconds before timing out.\n"));
  ASSERT_EQ(short_bar.findings.size(), 1u);
  EXPECT_EQ(short_bar.findings[0].cause.find("progress bar"), std::string::npos);
  // A training loop's bar (hiyouga/LlamaFactory#8261's shape) runs past the timeout too, but its
  // steps issue collectives: a late SeqNum is not work outside them.
  RuleOutcome loop = log_rule(
      kId, log_text("  1%|1         | 24/1752 [01:08<1:22:56,  2.88s/it]\n"
                    "[rank5]:[E602 11:17:52.185053341 ProcessGroupNCCL.cpp:632] [Rank 5] Watchdog "
                    "caught collective operation timeout: WorkNCCL(SeqNum=3051, OpType=ALLREDUCE, "
                    "NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800010 milliseconds "
                    "before timing out.\n"));
  ASSERT_EQ(loop.findings.size(), 1u);
  EXPECT_EQ(loop.findings[0].cause.find("progress bar"), std::string::npos);
  // The bar and the timeout on one line (the watchdog's error after the bar's carriage return,
  // hiyouga/LlamaFactory#2424): the line is quoted once.
  RuleOutcome same = log_rule(
      kId, log_text("Running tokenizer on dataset:   9%| | 280000/2969526 [29:55<4:48:08, 155.57 "
                    "examples/s][E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught collective "
                    "operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, "
                    "NumelOut=1, Timeout(ms)=1800000) ran for 1800572 milliseconds before timing "
                    "out.\n"));
  ASSERT_EQ(same.findings.size(), 1u);
  EXPECT_NE(same.findings[0].cause.find("progress bar"), std::string::npos);
  int at_line_1 = 0;
  for (const Evidence& e : same.findings[0].evidence) at_line_1 += e.where.line == 1;
  EXPECT_EQ(at_line_1, 1);
}

// Only the timeout error's backtrace (a log cut before PyTorch's "Watchdog caught collective
// operation timeout" line): WorkNCCL::checkTimeout builds that error only on a timeout.
TEST(NcclCollectiveTimeout, TheTimeoutErrorsBacktraceAlone) {
  const NcclRunFacts f = log_text(
      "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f6aa9ca0446 in "
      "/usr/lib/python3.10/site-packages/torch/lib/libc10.so)\n"
      "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::"
      "duration<long, std::ratio<1l, 1000l> > >) + 0x282 (0x7f6aaafa5672 in "
      "/usr/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so)\n");
  RuleOutcome o = log_rule(kId, f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("checkTimeout"), std::string::npos);
  EXPECT_TRUE(log_rule("framework-nccl-error", f).findings.empty());
  // "Exception raised from checkTimeout" reads the same; with the timeout's own line, that line.
  const NcclRunFacts g = log_text(
      "[rank0]:[E ProcessGroupNCCL.cpp:1182] [Rank 0] NCCL watchdog thread terminated with "
      "exception: [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=16349, "
      "OpType=ALLGATHER, NumelIn=1, NumelOut=2, Timeout(ms)=600000) ran for 600341 milliseconds "
      "before timing out.\n"
      "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
      "525 (most recent call first):\n");
  RuleOutcome p = log_rule(kId, g);
  ASSERT_EQ(p.findings.size(), 1u);
  EXPECT_NE(p.findings[0].message.find("ALLGATHER #16349"), std::string::npos);
  EXPECT_TRUE(log_rule("framework-nccl-error", g).findings.empty());
}

// The group's first collective (SeqNum 1) timing out is a rank that had not reached it or its
// first traffic stalling (PCIe P2P that ACS blocks hangs: a tistory.com write-up of a k8s pod fixed
// by NCCL_P2P_DISABLE=1): the fix says how to tell the two. The work on the line under the
// watchdog's (a paste that broke there) is read too. A later collective, or point-to-point work
// numbered 1, keeps the general reading.
TEST(NcclCollectiveTimeout, TheFirstCollectiveTimingOutIsItsFirstTrafficStalling) {
  const auto timeout = [](const std::string& seq) {
    return log_rule(
        kId,
        log_text("[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" + seq +
                 ", OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
                 "600012 milliseconds before timing out.\n"));
  };
  const RuleOutcome first = timeout("1");
  ASSERT_EQ(first.findings.size(), 1u);
  EXPECT_NE(first.findings[0].cause.find("first collective (SeqNum 1) never finished"),
            std::string::npos)
      << first.findings[0].cause;
  EXPECT_NE(first.findings[0].fix.find("NCCL_P2P_DISABLE=1"), std::string::npos)
      << first.findings[0].fix;
  EXPECT_NE(first.findings[0].fix.find("If one rank was still busy"), std::string::npos);
  // A SEND numbered 1 (PyTorch before 2.4 counted point-to-point work with the collectives).
  const RuleOutcome send = log_rule(
      kId, log_text("[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
                    "OpType=SEND, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 "
                    "milliseconds before timing out.\n"));
  ASSERT_EQ(send.findings.size(), 1u);
  EXPECT_EQ(send.findings[0].cause.find("SeqNum 1"), std::string::npos);
  const RuleOutcome later = timeout("5");
  ASSERT_EQ(later.findings.size(), 1u);
  EXPECT_EQ(later.findings[0].cause.find("SeqNum 1"), std::string::npos);
  EXPECT_NE(later.findings[0].fix.find("timedelta"), std::string::npos);
  const RuleOutcome broken =
      log_rule(kId, log_text("Watchdog caught collective operation timeout:\n"
                             "WorkNCCL(SeqNum=1, OpType=ALLREDUCE)\n"));
  ASSERT_EQ(broken.findings.size(), 1u);
  EXPECT_EQ(broken.findings[0].message, "Collective ALLREDUCE #1 timed out");
}

TEST(NcclCollectiveTimeout, QuietWithoutTimeouts) {
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log"))
                  .findings.empty());
}

// The ranks' timeouts side by side (NVIDIA/nccl#1409, not in the corpus): one SeqNum with two
// collectives is a mismatch. Not one: a SEND/RECV pair (numbered apart, they pair), a rank seen at
// two numbers, the same collective on every rank, and different numbers (the lines do not say
// which process group each is of, and groups count apart: NVIDIA/NeMo#13562's ranks were not
// compared). A line that names its group in the prefix is read with its rank.
TEST(NcclCollectiveTimeout, RanksSideBySideShowAMismatch) {
  auto line = [](const std::string& prefix, long seq, const std::string& op) {
    return "[rank7]:[E816 01:45:40.183009389 ProcessGroupNCCL.cpp:607] " + prefix +
           " Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" + std::to_string(seq) +
           ", OpType=" + op +
           ", NumelIn=5056, NumelOut=5056, Timeout(ms)=600000) ran for 600026 milliseconds before "
           "timing out.\n";
  };
  auto cause = [](const std::string& log) {
    RuleOutcome o = log_rule(kId, log_text(log));
    EXPECT_EQ(o.findings.size(), 1u) << log;
    return o.findings.empty() ? std::string() : o.findings[0].cause;
  };
  const std::string m =
      cause(line("[Rank 7]", 80078, "BROADCAST") + line("[Rank 3]", 80078, "ALLREDUCE"));
  EXPECT_NE(m.find("rank 3 in ALLREDUCE and rank 7 in BROADCAST"), std::string::npos) << m;
  EXPECT_NE(m.find("collective mismatch"), std::string::npos);
  EXPECT_NE(m.find("do not name their process group"), std::string::npos);
  // The rank read from a prefix that names the group; the group named, no caveat.
  const std::string named = cause(line("[PG ID 1 PG GUID 1(tp) Rank 3]", 12, "ALLREDUCE") +
                                  line("[PG ID 1 PG GUID 1(tp) Rank 1]", 12, "BROADCAST"));
  EXPECT_NE(named.find("rank 3 in ALLREDUCE"), std::string::npos) << named;
  EXPECT_EQ(named.find("do not name their process group"), std::string::npos) << named;
  // Two groups named apart are not compared.
  EXPECT_EQ(cause(line("[PG ID 1 PG GUID 1(tp) Rank 0]", 12, "ALLREDUCE") +
                  line("[PG ID 0 PG GUID 0(default_pg) Rank 1]", 12, "BROADCAST"))
                .find("mismatch"),
            std::string::npos);
  for (const std::string& quiet : {
           line("[Rank 0]", 5, "SEND") + line("[Rank 1]", 5, "RECV"),
           line("[Rank 3]", 12, "ALLREDUCE") + line("[Rank 3]", 80078, "BROADCAST") +
               line("[Rank 5]", 80078, "ALLREDUCE"),
           line("[Rank 0]", 5, "ALLREDUCE") + line("[Rank 1]", 5, "ALLREDUCE"),
           line("[Rank 2]", 532339, "BROADCAST") + line("[Rank 1]", 532339, "BROADCAST") +
               line("[Rank 0]", 532341, "_ALLGATHER_BASE"),
       }) {
    const std::string c = cause(quiet);
    EXPECT_EQ(c.find("mismatch"), std::string::npos) << c;
    EXPECT_EQ(c.find("out of step"), std::string::npos) << c;
  }
}

}  // namespace
}  // namespace trainready::test
