#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-separate-jobs";

TEST(NcclSeparateJobs, EveryCommunicatorStaysInsideItsHost) {
  // nccl-tests without MPI=1 on two hosts (2.19 format): each process builds its own
  // communicator with nNodes 1.
  const char* t =
      "hw14:798:798 [0] NCCL INFO Bootstrap : Using bond0:10.0.0.15<0>\n"
      "hw14:798:810 [0] NCCL INFO comm 0x5581 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 "
      "MNNVL 0\n"
      "hw14:798:810 [0] NCCL INFO comm 0x5581 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId f000 "
      "commId 0x1111 - Init COMPLETE\n"
      "hw14:798:811 [1] NCCL INFO comm 0x5582 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 34000 "
      "commId 0x1111 - Init COMPLETE\n"
      "hw15:801:801 [0] NCCL INFO Bootstrap : Using bond0:10.0.0.16<0>\n"
      "hw15:801:812 [0] NCCL INFO comm 0x5591 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 "
      "MNNVL 0\n"
      "hw15:801:812 [0] NCCL INFO comm 0x5591 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId f000 "
      "commId 0x2222 - Init COMPLETE\n"
      "hw15:801:813 [1] NCCL INFO comm 0x5592 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 34000 "
      "commId 0x2222 - Init COMPLETE\n";
  RuleOutcome o = log_rule(kId, log_text(t));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("2 hosts"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("MPI=1"), std::string::npos);
}

TEST(NcclSeparateJobs, SameRankNumbersOnTwoHostsWithoutCommId) {
  // 2.7 format (no commId): both hosts claim rank 0 of "nranks 1".
  const char* t =
      "a:10:10 [0] NCCL INFO comm 0x7f01 rank 0 nranks 1 cudaDev 0 busId 3b000 - Init COMPLETE\n"
      "b:20:20 [0] NCCL INFO comm 0x7f02 rank 0 nranks 1 cudaDev 0 busId 3b000 - Init COMPLETE\n";
  NcclRunFacts f = log_text(t);
  ASSERT_EQ(f.comms.size(), 1u);
  EXPECT_EQ(f.comms.begin()->second.rank_clash_hosts.size(), 2u);
  EXPECT_EQ(log_rule(kId, f).findings.size(), 1u);
}

// Only the run's end, as NVIDIA/nccl-tests#182 quotes it (nccl-tests without MPI=1 on two
// hosts, sjeaugey: "compile the nccl-tests with MPI=1"): each host destroyed ranks 0 and 1 of
// its own 2-rank communicator.
TEST(NcclSeparateJobs, DestroyLinesAloneShowTheSameRanksOnTwoHosts) {
  const char* t =
      "   268435456      67108864     float     sum      -1    55270    4.86    4.86      0    "
      "55213    4.86    4.86      0\n"
      "testgpu1:2832:2832 [1] NCCL INFO comm 0x55c6f1c65b50 rank 0 nranks 2 cudaDev 0 busId 3000 "
      "- Destroy COMPLETE\n"
      "testgpu1:2832:2832 [1] NCCL INFO comm 0x55c6f1c6a6c0 rank 1 nranks 2 cudaDev 1 busId 3020 "
      "- Destroy COMPLETE\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 1.7535\n"
      "#\n\n"
      "   268435456      67108864     float     sum      -1    59440    4.52    4.52      0    "
      "59568    4.51    4.51      0\n"
      "testgpu2:3255:3255 [1] NCCL INFO comm 0x55bc161d6b40 rank 0 nranks 2 cudaDev 0 busId 3000 "
      "- Destroy COMPLETE\n"
      "testgpu2:3255:3255 [1] NCCL INFO comm 0x55bc161db6b0 rank 1 nranks 2 cudaDev 1 busId 3020 "
      "- Destroy COMPLETE\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 1.6796\n";
  const NcclRunFacts f = log_text(t);
  EXPECT_TRUE(f.comms.empty());  // no init line: nothing else reads these as an init
  const RuleOutcome o = log_rule(kId, f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("2 hosts (testgpu1, testgpu2)"), std::string::npos);
  EXPECT_NE(o.findings[0].evidence[0].text.find("Destroy COMPLETE"), std::string::npos);
  // One host's end: nothing clashes.
  const std::string one(t, std::string_view(t).find("# Out of bounds"));
  EXPECT_TRUE(log_rule(kId, log_text(one)).findings.empty());
  // One 2 x 2 job's end: tensor-parallel pairs inside each host and data-parallel pairs
  // across, all of two ranks, a process per GPU: no process held ranks 0 and 1 of one size
  // alone, so nothing reads as separate jobs.
  std::string tp_dp;
  for (const char* l : {"nodeA:1000:1000 [0] 0x770 rank 0", "nodeA:1001:1001 [1] 0x771 rank 1",
                        "nodeB:1000:1000 [0] 0x770 rank 0", "nodeB:1001:1001 [1] 0x771 rank 1",
                        "nodeA:1000:1000 [0] 0x880 rank 0", "nodeB:1000:1000 [0] 0x990 rank 1",
                        "nodeA:1001:1001 [1] 0x881 rank 0", "nodeB:1001:1001 [1] 0x991 rank 1"}) {
    std::string line(l);
    const std::size_t comm = line.find("0x");
    tp_dp += line.substr(0, comm) + "NCCL INFO comm " + line.substr(comm) +
             " nranks 2 cudaDev 0 busId 10000 - Destroy COMPLETE\n";
  }
  EXPECT_TRUE(log_rule(kId, log_text(tp_dp)).findings.empty());
  // One job over two hosts (an MPI build): rank 0 on one, rank 1 on the other.
  EXPECT_TRUE(log_rule(kId, log_text("a:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 "
                                     "busId 3000 - Destroy COMPLETE\n"
                                     "b:2:2 [0] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 0 "
                                     "busId 3000 - Destroy COMPLETE\n"))
                  .findings.empty());
}

TEST(NcclSeparateJobs, QuietWhenACommunicatorSpansHosts) {
  EXPECT_TRUE(
      log_rule(kId, log_fixture("nccl-debug/bigscience-jz-16node-v100-netib-hfi1-nccl2.7.8.log"))
          .findings.empty());
}

}  // namespace
}  // namespace trainready::test
