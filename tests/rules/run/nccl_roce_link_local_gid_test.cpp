#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-roce-link-local-gid";

// NVIDIA/nccl#1657: NCCL_IB_GID_INDEX=0 and a queue pair on "GID 0 (80FE/...)", fe80::/64.
TEST(NcclRoceLinkLocalGid, FiresOnTheForcedLinkLocalGid) {
  NcclRunFacts f = log_fixture("nccl-debug/nccl1657-roce-gid-index0-link-local-gid-nccl2.21.log");
  EXPECT_EQ(f.roce_gid_link_local, 1u);
  EXPECT_EQ(f.roce_gid_other, 0u);
  RuleOutcome o = log_rule(kId, f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].cause.find("NCCL_IB_GID_INDEX=0"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("show_gids"), std::string::npos);
}

// A RoCE v2 GID with an IPv4 address (::ffff:192.168.1.75: prefix 0) is what NCCL 2.21+ picks.
TEST(NcclRoceLinkLocalGid, QuietOnARoutableGid) {
  const std::string text =
      "h1:88:159 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 1047 mtu 5 GID 3 "
      "(0/4B01A8C0FFFF0000) fifoRkey=0x15e6c5 fifoLkey=0x15e6c5\n"
      "h2:77:150 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 2047 mtu 5 GID 3 "
      "(0/4C01A8C0FFFF0000) fifoRkey=0x15e6c6 fifoLkey=0x15e6c6\n";
  NcclRunFacts f = log_text(text);
  EXPECT_EQ(f.roce_gid_other, 2u);
  EXPECT_TRUE(f.multi_node());
  EXPECT_TRUE(log_rule(kId, f).findings.empty());
}

// Ranks on different GIDs, or a failed IB connection, make it the error of the run; the 2.3-2.18
// format ("Dev %d Port %d qpn %d mtu %d GID %ld (%lX/%lX)") is read the same.
TEST(NcclRoceLinkLocalGid, AnErrorWhenRanksDisagree) {
  const std::string text =
      "h1:88:159 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 1047 mtu 5 GID 0 (80FE/1A8A41FEFF21A75E)\n"
      "h2:77:150 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 2047 mtu 5 GID 3 (0/4C01A8C0FFFF0000)\n";
  RuleOutcome o = log_rule(kId, log_text(text));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].message.find("chose differently"), std::string::npos);
}

// Within one layer-2 segment a link-local GID works: once a rank completed init, without an IB
// failure, it is a note.
TEST(NcclRoceLinkLocalGid, ANoteOnceInitCompletedWithoutIbFailures) {
  const std::string text =
      "h1:88:159 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 1047 mtu 5 GID 0 (80FE/1A8A41FEFF21A75E)\n"
      "h2:77:150 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 2047 mtu 5 GID 0 (80FE/1B8A41FEFF21A75E)\n"
      "h1:88:88 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1c000 commId "
      "0x2 - Init COMPLETE\n";
  RuleOutcome o = log_rule(kId, log_text(text));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  o = log_rule(kId,
               log_text(text + "h1:88:160 [0] NCCL WARN NET/IB : Got completion from peer "
                               "10.0.0.2<1234> with error 12, opcode 0, len 0, vendor err 129\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
}

}  // namespace
}  // namespace trainready::test
