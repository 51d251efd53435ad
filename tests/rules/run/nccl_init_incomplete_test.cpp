#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-init-incomplete";

// PyTorch's watchdog: the job hung (a timeout after the last NCCL line).
const char* kWatchdogTimeout =
    "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
    "600010 milliseconds before timing out.\n";

TEST(NcclInitIncomplete, FiresOnAHangAndNamesTheAbsentRank) {
  RuleOutcome o = log_rule(kId, log_synthetic("init-hang-2node.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& f = o.findings[0];
  EXPECT_NE(f.message.find("3 rank(s) on 2 host(s)"), std::string::npos);
  bool absent = false;
  for (const auto& e : f.evidence)
    absent = absent ||
             e.text.find("printed no Init START or Init COMPLETE: rank 3") != std::string::npos;
  EXPECT_TRUE(absent);
  EXPECT_NE(f.cause.find("node-a"), std::string::npos);
}

// A rank whose own lines hold a WARN and an error trail failed its init: the others wait on it,
// nothing hung by itself (horovod#1651, NCCL 2.3: ibv_create_qp failed on ta1-1).
TEST(NcclInitIncomplete, ARankThatFailedInitIsNotAHang) {
  const std::string log =
      "ta1-1:2712:2824 [0] misc/ibvwrap.cu:280 NCCL WARN Call to ibv_create_qp failed\n"
      "ta1-1:2712:2824 [0] NCCL INFO init.cu:593 -> 2\n"
      "ta1-0:2668:2780 [0] NCCL INFO comm 0x7f0a8834b870 rank 0 nranks 2\n"
      "ta1-1:2712:2824 [0] NCCL INFO comm 0x7fa94834c010 rank 1 nranks 2\n"
      "ta1-1:2712:2824 [0] NCCL INFO Ring 00 : 0 -> 1 via NET/IB/0\n"
      "ta1-0:2668:2780 [0] NCCL INFO Ring 00 : 1 -> 0 via NET/IB/0\n";
  RuleOutcome o = log_rule(kId, log_text(log));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& f = o.findings[0];
  EXPECT_EQ(f.message.find("hangs"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("ta1-1 pid 2712 returned an error from init"), std::string::npos)
      << f.message;
  EXPECT_EQ(f.severity, Severity::kError);
  // Without the failing rank's lines it stays the hang reading.
  RuleOutcome h = log_rule(kId, log_text(log.substr(log.find("ta1-0:2668"))));
  ASSERT_EQ(h.findings.size(), 1u);
  EXPECT_EQ(h.findings[0].message.find("returned an error from init"), std::string::npos);
  // A rank whose last line is an error trail's returned the error and printed nothing after it
  // (nccl-tests#15, NCCL 2.2: a bootstrap connect timed out).
  RuleOutcome b = log_rule(
      kId, log_text("gpu-a:18553:18611 [0] NCCL INFO comm 0x7f0a8834b870 rank 0 nranks 2\n"
                    "gpu-a:18553:18612 [0] include/socket.h:360 NCCL WARN Call to connect failed "
                    ": Connection timed out\n"
                    "gpu-a:18553:18612 [0] NCCL INFO bootstrap.cu:259 -> 2\n"));
  ASSERT_EQ(b.findings.size(), 1u);
  EXPECT_NE(b.findings[0].message.find("gpu-a pid 18553 returned an error from init"),
            std::string::npos)
      << b.findings[0].message;
}

// The ranks with no init line are listed in numeric order, runs as ranges (uccl#172 listed
// "rank 0, 10, 11, 15, 2, ..." as text), with their count.
TEST(NcclInitIncomplete, AbsentRanksInNumericOrderWithRanges) {
  std::string log;
  for (int r : {1, 4, 6, 7, 12, 13, 14})
    log += "h" + std::to_string(r / 8) + ":" + std::to_string(100 + r) + ":" +
           std::to_string(100 + r) + " [" + std::to_string(r % 8) +
           "] NCCL INFO comm 0x55d0 rank " + std::to_string(r) + " nranks 16 cudaDev " +
           std::to_string(r % 8) + " nvmlDev 0 busId 1000 commId 0xabc - Init START\n";
  RuleOutcome o = log_rule(kId, log_text(log + kWatchdogTimeout));
  ASSERT_EQ(o.findings.size(), 1u);
  std::string ev;
  for (const auto& e : o.findings[0].evidence) ev += e.text + "\n";
  EXPECT_NE(
      ev.find("9 rank(s) printed no Init START or Init COMPLETE: rank 0, 2, 3, 5, 8-11, 15\n"),
      std::string::npos)
      << ev;
}

// The ranges come from the ranks that printed, not from a walk over every rank a line claims: a
// communicator of 16 M ranks (the reader's cap) with one rank in the log is two runs.
TEST(NcclInitIncomplete, AbsentRangesOfAHugeCommunicator) {
  RuleOutcome o = log_rule(kId, log_text("h:1:1 [0] NCCL INFO comm 0x55d0 rank 5 nranks 16000000 "
                                         "cudaDev 0 nvmlDev 0 busId 1000 commId 0xabc - Init "
                                         "START\n" +
                                         std::string(kWatchdogTimeout)));
  ASSERT_EQ(o.findings.size(), 1u);
  std::string ev;
  for (const auto& e : o.findings[0].evidence) ev += e.text + "\n";
  EXPECT_NE(ev.find("15999999 rank(s) printed no Init START or Init COMPLETE: rank 0-4, "
                    "6-15999999\n"),
            std::string::npos)
      << ev;
}

// A communicator of one rank waits for no peer (deepspeedai/DeepSpeed#8248, NCCL 2.29 on WSL):
// an excerpt that ends in its init is a capture cut, a warning, even after a WARN NCCL went on
// from.
TEST(NcclInitIncomplete, OneRankCommunicatorCutMidInitIsAWarning) {
  RuleOutcome o = log_rule(
      kId,
      log_text(
          "D:2129:2129 [0] misc/ibvwrap.cc:173 NCCL WARN lib wrapper not initialized.\n"
          "D:2129:2129 [0] NCCL INFO transport/net_ib/gdr.cc:56 -> 3\n"
          "D:2129:2129 [0] NCCL INFO Failed to initialize any GIN plugin\n"
          "D:2129:2129 [0] NCCL INFO Using network Socket\n"
          "D:2129:2129 [0] NCCL INFO [Rank 0] ncclCommInitRankConfig comm 0x641a32ed9550 rank 0 "
          "nranks 1 cudaDev 0 nvmlDev 0 busId 1000 commId 0x7d30723e5510cf36 - Init START\n"
          "D:2129:2129 [0] NCCL INFO comm 0x641a32ed9550 rank 0 nRanks 1 nNodes 1 localRanks 1 "
          "localRank 0 MNNVL 0\n"
          "D:2129:2129 [0] NCCL INFO Channel 00/64 : 0\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].cause.find("only rank of its communicator"), std::string::npos)
      << o.findings[0].cause;
}

TEST(NcclInitIncomplete, QuietWhenEveryRankCompletes) {
  EXPECT_TRUE(
      log_rule(kId, log_fixture("nccl-debug/bigscience-jz-16node-v100-netib-hfi1-nccl2.7.8.log"))
          .findings.empty());
  EXPECT_TRUE(
      log_rule(
          kId,
          log_fixture("nccl-debug/timezzx-1node-2xa100pcie-nvlink-roce-nccl2.27.7-subsys-all.log"))
          .findings.empty());
}

TEST(NcclInitIncomplete, SkipsExcerptsWithoutInitLines) {
  EXPECT_TRUE(log_rule(kId, log_synthetic("version-mismatch.log")).skipped);
}

TEST(NcclInitIncomplete, SilenceAfterP2pConnectionsPointsAtAcs) {
  // 2.19 format; every rank stops right after its P2P channel lines, and a timeout follows.
  const char* t =
      "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 41000 commId 0x9 - "
      "Init START\n"
      "h:2:2 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 61000 commId 0x9 - "
      "Init START\n"
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
      "h:2:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM\n";
  RuleOutcome o = log_rule(kId, log_text(std::string(t) + kWatchdogTimeout));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("P2P"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("ACS"), std::string::npos);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
}

TEST(NcclInitIncomplete, SilenceInsideNvlsSetupPointsAtNvls) {
  // 2.19's transport/nvls.cc: the bind blocks until every GPU has joined the multicast group.
  // Even an excerpt of that last line alone is read: the line is itself a step of init.
  const char* bind =
      "c2:1023:1032 [0] NCCL INFO NVLS Bind mem 0xac0000000 UC handle 0x7f3310ccb240 MC handle "
      "0x7f3310ccaa20 size 1073741824\n";
  // Alone it may be a cut capture (a warning that says so); with the watchdog's timeout after
  // it, the job hung there (an error).
  RuleOutcome o = log_rule(kId, log_text(bind));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("NVLS"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("cut"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("NCCL_NVLS_ENABLE=0"), std::string::npos);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  o = log_rule(kId, log_text(std::string(bind) + kWatchdogTimeout));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  // A WARN no rule places is no failure: the stop stays a warning.
  o = log_rule(kId, log_text("h:1:1 [0] misc/utils.cc:1 NCCL WARN something unrelated\n" +
                             std::string(bind)));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  // A user buffer's registration at a collective (2.19+) also creates and imports a multicast
  // group: an excerpt ending there (NCCL_DEBUG_SUBSYS=NVLS, no init lines) is not a stop.
  EXPECT_TRUE(log_rule(kId, log_text("h:1:1 [0] NCCL INFO NVLS Creating Multicast group nranks 8 "
                                     "size 2097152 on rank 0\nh:1:1 [0] NCCL INFO NVLS Created "
                                     "Multicast group 7f nranks 8 size 2097152 on rank 0\n"))
                  .skipped);
  // Setup lines that are no wait (the comm's NVLS plan, printed before the buffers), pasted
  // alone, are not read as a stop: an excerpt about NVLS memory, not a hang.
  EXPECT_TRUE(log_rule(kId, log_text("h:1:1 [0] NCCL INFO NVLS multicast support is available on "
                                     "dev 0\nh:1:1 [0] NCCL INFO NVLS comm 0x1 headRank 0 nHeads 8 "
                                     "buffSize 1048576 memSize 2097152 nvlsPerRankSize 201326592 "
                                     "nvlsTotalSize 1610612736\n"))
                  .skipped);
  // The same setup followed by Init COMPLETE is a finished init; 2.22.3+'s lazy buffer setup at
  // the first collective comes after Init COMPLETE and is no init step.
  const std::string start =
      "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 41000 commId 0x9 - "
      "Init START\n";
  const std::string done =
      "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 41000 commId 0x9 - "
      "Init COMPLETE\n";
  const std::string alloc =
      "h:1:1 [0] NCCL INFO NVLS rank 0 (dev 0) alloc done, ucptr 0x1 ucgran 2097152 mcptr 0x2 "
      "mcgran 2097152 size 1610612736 (1610612736)\n";
  const std::string bound =
      "h:1:1 [0] NCCL INFO NVLS Bind mem 0xac0000000 UC handle 0x1 MC handle 0x2 size 1073741824\n";
  EXPECT_EQ(log_rule(kId, log_text(start + bound)).findings.size(), 1u);
  EXPECT_TRUE(log_rule(kId, log_text(start + bound + done)).findings.empty());
  EXPECT_TRUE(log_rule(kId, log_text(start + done + alloc)).findings.empty());
  // Teardown lines are no setup step.
  EXPECT_TRUE(log_rule(kId, log_text("h:1:1 [0] NCCL INFO NVLS Unbind MC handle 7f size 2097152 "
                                     "dev 0\n"))
                  .skipped);
}

TEST(NcclInitIncomplete, ALogThatEndsMidInitMayBeACutCapture) {
  const char* t =
      "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 41000 commId 0x9 - "
      "Init START\n"
      "h:1:1 [0] NCCL INFO Setting affinity for GPU 0 to ffff\n";
  RuleOutcome o = log_rule(kId, log_text(t));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("cut"), std::string::npos);
}

}  // namespace
}  // namespace trainready::test
