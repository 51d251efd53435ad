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

// Error 12 read for the link layer the log shows: NCCL prints the GIDs in the completion WARN only
// for an Ethernet port (src/transport/net_ib.cc:1903 @ v2.21.5-1), so such a line is RoCE and
// gets no partition / scale-set advice (NVIDIA/nccl#1405); a device listed as IB gets no GID
// advice; a log that shows neither gets both.
TEST(NcclIbCompletionError, ErrorTwelveReadForTheLinkLayerShown) {
  const std::string roce_warn =
      "w0:3468:3905 [4] transport/net_ib.cc:1911 NCCL WARN NET/IB : Got completion from peer "
      "10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
      "fd00:1148:9000:5000:4:200:3:ff22 remoteGidsfd00:1148:9000:5000:4:200:3:ff1f\n";
  RuleOutcome roce = log_rule(kId, log_text(roce_warn));
  ASSERT_EQ(roce.findings.size(), 1u);
  EXPECT_NE(roce.findings[0].cause.find("The log shows RoCE ports"), std::string::npos);
  EXPECT_EQ(roce.findings[0].fix.find("scale set"), std::string::npos) << roce.findings[0].fix;
  EXPECT_EQ(roce.findings[0].fix.rfind("Set NCCL_IB_GID_INDEX", 0), 0u);
  const std::string ib_warn =
      "n1:1:2 [0] NCCL INFO NET/IB : Using [0]mlx5_ib0:1/IB [1]mlx5_ib1:1/IB ; OOB "
      "eth0:10.0.0.4<0>\n"
      "n1:1:3 [0] transport/net_ib.cc:1911 NCCL WARN NET/IB : Got completion from peer "
      "10.0.0.5<41234> with status=12 opcode=0 len=0 vendor err 129 (Recv)\n";
  RuleOutcome ib = log_rule(kId, log_text(ib_warn));
  ASSERT_EQ(ib.findings.size(), 1u);
  EXPECT_NE(ib.findings[0].cause.find("The log shows InfiniBand ports"), std::string::npos);
  EXPECT_EQ(ib.findings[0].cause.find("NCCL_IB_GID_INDEX"), std::string::npos);
  EXPECT_NE(ib.findings[0].fix.find("scale set"), std::string::npos);
  RuleOutcome unknown = log_rule(
      kId, log_text("n1:1:3 [0] transport/net_ib.cc:1911 NCCL WARN NET/IB : Got completion from "
                    "peer 10.0.0.5<41234> with status=12 opcode=0 len=0 vendor err 129 (Recv)\n"));
  ASSERT_EQ(unknown.findings.size(), 1u);
  EXPECT_NE(unknown.findings[0].cause.find("On InfiniBand"), std::string::npos);
  EXPECT_NE(unknown.findings[0].cause.find("on RoCE"), std::string::npos);
}

}  // namespace
}  // namespace trainready::test
