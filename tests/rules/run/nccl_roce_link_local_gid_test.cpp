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
  const std::string line =
      "h1:88:159 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 1047 mtu 5 GID 3 "
      "(0/4B01A8C0FFFF0000) fifoRkey=0x15e6c5 fifoLkey=0x15e6c5\n";
  NcclRunFacts f = log_text(line);
  EXPECT_EQ(f.roce_gid_other, 1u);
  EXPECT_TRUE(log_rule(kId, f).findings.empty());
}

// Ranks on different GIDs, or a failed connection, make it the error of the run; the 2.7-2.20
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

}  // namespace
}  // namespace trainready::test
