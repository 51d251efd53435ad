#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-hosts-taken-as-one";

TEST(NcclHostsTakenAsOne, PeerOnADeviceAnotherRankOfTheHostHolds) {
  // NVIDIA/nccl#187 (NCCL 2.3/2.4): two machines named learngpu060.<something>; NCCL kept the
  // name up to its first '.', so rank 6 reached rank 10 (the other machine's device 2) over
  // P2P/IPC while rank 2 of this host is on device 2.
  const char* t =
      "RuntimeError: NCCL error in: caffe2/torch/lib/c10d/ProcessGroupNCCL.cpp:260, unhandled "
      "cuda error\n"
      "learngpu060:3728589:3730445 [2] INFO Ring 00 : 2[2] -> 3[3] via P2P/IPC\n"
      "learngpu060:3728591:3730447 [4] INFO Ring 00 : 4[4] -> 5[5] via P2P/IPC\n"
      "learngpu060:3728580:3730448 [1] INFO Ring 00 : 1[1] -> 2[2] via P2P/IPC\n"
      "learngpu060:3728590:3730442 [3] INFO Ring 00 : 3[3] -> 7[7] via P2P/IPC\n"
      "learngpu060:3728594:3730443 [7] INFO Ring 00 : 7[7] -> 4[4] via P2P/IPC\n"
      "learngpu060:3728593:3730444 [6] INFO Ring 00 : 6[6] -> 10[2] via P2P/IPC\n";
  NcclRunFacts f = log_text(t);
  ASSERT_TRUE(f.host_device_clash);
  EXPECT_EQ(f.host_device_clash->dev, 2);
  EXPECT_EQ(f.host_device_clash->holder, 2);
  EXPECT_EQ(f.host_device_clash->peer, 10);
  EXPECT_TRUE(f.multi_node());
  RuleOutcome o = log_rule(kId, f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("rank 10"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("hostname -s"), std::string::npos);
  ASSERT_EQ(o.findings[0].evidence.size(), 2u);
  EXPECT_NE(o.findings[0].evidence[1].text.find("6[6] -> 10[2]"), std::string::npos);
}

TEST(NcclHostsTakenAsOne, SharedMemoryLinesCountToo) {
  const char* t =
      "n1:10:11 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via direct shared memory\n"
      "n1:12:13 [1] NCCL INFO Ring 00 : 1[1] -> 2[0] via direct shared memory\n";
  RuleOutcome o = log_rule(kId, log_text(t));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("rank 2 over"), std::string::npos);
}

TEST(NcclHostsTakenAsOne, QuietWhenEveryRankSeesItsGpuAsDeviceZero) {
  // CUDA_VISIBLE_DEVICES set per process: every rank is device 0, the numbers say nothing.
  const char* t =
      "n1:10:11 [0] NCCL INFO Ring 00 : 0[0] -> 1[0] via P2P/IPC\n"
      "n1:12:13 [0] NCCL INFO Ring 00 : 1[0] -> 0[0] via P2P/IPC\n";
  NcclRunFacts f = log_text(t);
  EXPECT_FALSE(f.host_device_clash);
  EXPECT_TRUE(log_rule(kId, f).findings.empty());
}

TEST(NcclHostsTakenAsOne, QuietWhenAProcessPrintsTwoRankNumbers) {
  // Two communicators number the same processes differently: rank 1 of the second one is on
  // device 2, which rank 2 of the first holds.
  const char* t =
      "n1:10:11 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC\n"
      "n1:12:13 [1] NCCL INFO Ring 00 : 1[1] -> 2[2] via P2P/IPC\n"
      "n1:14:15 [2] NCCL INFO Ring 00 : 2[2] -> 0[0] via P2P/IPC\n"
      "n1:10:11 [0] NCCL INFO Ring 00 : 0[0] -> 1[2] via P2P/IPC\n"
      "n1:14:15 [2] NCCL INFO Ring 00 : 1[2] -> 0[0] via P2P/IPC\n";
  EXPECT_TRUE(log_rule(kId, log_text(t)).findings.empty());
}

TEST(NcclHostsTakenAsOne, QuietWhenASubCommunicatorRenumbersOverTheNetwork) {
  // A data-parallel group {0, 3, 4, 7} over two hosts: in it, hostA's device-3 process is rank 1
  // and reaches its peers over NET only; its P2P line in the group names rank 0 on device 0.
  const char* t =
      "hostA:100:200 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC\n"
      "hostA:101:201 [1] NCCL INFO Ring 00 : 1[1] -> 2[2] via P2P/IPC\n"
      "hostA:102:202 [2] NCCL INFO Ring 00 : 2[2] -> 3[3] via P2P/IPC\n"
      "hostA:103:203 [3] NCCL INFO Ring 00 : 3 -> 4 [send] via NET/IB/0\n"
      "hostA:103:203 [3] NCCL INFO Ring 00 : 1 -> 2 [send] via NET/IB/0\n"
      "hostA:100:200 [0] NCCL INFO Ring 00 : 0[0] -> 1[3] via P2P/IPC\n";
  EXPECT_TRUE(log_rule(kId, log_text(t)).findings.empty());
}

TEST(NcclHostsTakenAsOne, QuietWhereTwoRanksAlreadyShareADevice) {
  const char* t =
      "n1:100:200 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC\n"
      "n1:101:201 [1] NCCL INFO Ring 00 : 1[1] -> 2[0] via P2P/IPC\n"
      "n1:103:203 [1] NCCL INFO Ring 00 : 3[1] -> 0[0] via P2P/IPC\n";
  EXPECT_TRUE(log_rule(kId, log_text(t)).findings.empty());
}

TEST(NcclHostsTakenAsOne, AClashAfterManyRingsIsStillSeen) {
  // The same connections repeated over many rings are one claim each.
  std::string t;
  for (int ring = 0; ring < 300; ++ring) {
    const std::string r = (ring < 10 ? "0" : "") + std::to_string(ring);
    t += "n1:10:11 [0] NCCL INFO Ring " + r + " : 0[0] -> 1[1] via P2P/IPC\n";
    t += "n1:12:13 [1] NCCL INFO Ring " + r + " : 1[1] -> 0[0] via P2P/IPC\n";
  }
  t += "n1:12:13 [1] NCCL INFO Ring 07 : 1[1] -> 9[0] via P2P/IPC\n";
  EXPECT_EQ(log_rule(kId, log_text(t)).findings.size(), 1u);
}

TEST(NcclHostsTakenAsOne, QuietOnAConsistentRingAndOnBusIds) {
  const char* t =
      "n1:10:11 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC\n"
      "n1:12:13 [1] NCCL INFO Ring 00 : 1[1] -> 0[0] via P2P/IPC\n"
      // 2.5+: the brackets hold bus ids, and init refuses two ranks on one GPU.
      "n2:10:11 [0] NCCL INFO Ring 00 : 2[1a000] -> 3[1b000] via P2P/IPC\n"
      "n2:12:13 [1] NCCL INFO Ring 00 : 3[1b000] -> 4[1a000] via P2P/IPC\n"
      // A bus id short enough to read as a device number (0000:00:04.0 prints 40): the stream's
      // own device ([0]) tells it apart.
      "n3:10:11 [0] NCCL INFO Ring 00 : 5[40] -> 6[41] via P2P/IPC\n"
      "n3:12:13 [1] NCCL INFO Ring 00 : 6[41] -> 7[40] via P2P/IPC\n";
  NcclRunFacts f = log_text(t);
  EXPECT_FALSE(f.host_device_clash);
  EXPECT_TRUE(log_rule(kId, f).findings.empty());
}

}  // namespace
}  // namespace trainready::test
