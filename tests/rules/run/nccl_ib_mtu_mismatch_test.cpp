#include <gtest/gtest.h>

#include "parsers/nccl_ib_mtu.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-ib-mtu-mismatch";

// The queue-pair line of each release carries the port and its active MTU (the ibv_mtu number).
TEST(NcclIbMtu, ReadsTheQueuePairLineOfEachRelease) {
  auto q = parse_ib_qp_mtu("NET/IB: Dev 0 Port 1 qpn 472981 mtu 5 LID 53");  // 2.3 - 2.19
  ASSERT_TRUE(q);
  EXPECT_EQ(q->port, "Dev 0 Port 1");
  EXPECT_EQ(q->mtu_bytes, 4096);
  q = parse_ib_qp_mtu(
      "NET/IB: NCCL MergedDev 1 IbDev 3 Port 1 qpn 1047 mtu 3 query_ece={supported=1, "
      "vendor_id=0x15b3, options=0x0, comp_mask=0x0} GID 3 (0/4B01A8C0FFFF0000) fifoRkey=0x1");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->port, "IbDev 3 Port 1");
  EXPECT_EQ(q->mtu_bytes, 1024);
  q = parse_ib_qp_mtu(
      "NET/IB: ncclIbConnect: NCCL Dev 0 IbDev 2 Port 1 qp_num 88 mtu 4 LID 7 subnet-prefix 0  "
      "FLID 0 ctsFifoRkey=0x1 ctsFifoLkey=0x1");  // 2.29+
  ASSERT_TRUE(q);
  EXPECT_EQ(q->port, "IbDev 2 Port 1");
  EXPECT_EQ(q->mtu_bytes, 2048);
  // Not a queue-pair line, an MTU outside enum ibv_mtu, a cut line, garbage.
  EXPECT_FALSE(parse_ib_qp_mtu("NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.0.0.1<0>"));
  EXPECT_FALSE(parse_ib_qp_mtu("NET/IB: Dev 0 Port 1 qpn 47 mtu 9 LID 53"));
  EXPECT_FALSE(parse_ib_qp_mtu("NET/IB: Dev 0 Port 1 qpn 47 mtu 5x"));
  EXPECT_FALSE(parse_ib_qp_mtu("NET/IB: Dev 0 Port 1 qpn 47 mt"));
  EXPECT_FALSE(parse_ib_qp_mtu("NET/IB: Dev x Port 1 qpn 47 mtu 5"));
  EXPECT_FALSE(parse_ib_qp_mtu("NET/IB: Port 1 qpn 47 mtu 5"));
  EXPECT_FALSE(parse_ib_qp_mtu("NET/Socket: Dev 0 Port 1 qpn 47 mtu 5"));
  EXPECT_FALSE(parse_ib_qp_mtu("NET/IB: NCCL Dev 0 IbDev Port 1 qpn 1 mtu 5"));
  EXPECT_FALSE(parse_ib_qp_mtu("NET/IB: Dev Port 1 qpn 1 mtu 5"));
  EXPECT_FALSE(parse_ib_qp_mtu("NET/IB: Dev 99999999999999999999999 Port 1 qpn 1 mtu 5"));
  EXPECT_FALSE(parse_ib_qp_mtu(""));
}

// Two RoCE hosts at 4096 and 1024 under NCCL 2.21.5, and the QP errors that follow (the
// hand-written log in NCCL's formats; NVIDIA/nccl#1524).
TEST(NcclIbMtuMismatch, AnErrorFromNccl220On) {
  NcclRunFacts f = log_synthetic("roce-mtu-4096-1024-2node-nccl2.21.log");
  ASSERT_EQ(f.ib_port_mtus.size(), 2u);
  RuleOutcome o = log_rule(kId, f);
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_EQ(x.severity, Severity::kError);
  EXPECT_NE(x.message.find("4096 bytes on node-a IbDev 0 Port 1"), std::string::npos);
  EXPECT_NE(x.message.find("1024 bytes on node-b"), std::string::npos);
  EXPECT_NE(x.cause.find("2.20 or later"), std::string::npos);
  ASSERT_EQ(x.evidence.size(), 3u) << "both MTUs' lines and the first IB failure";
  EXPECT_NE(x.evidence[2].text.find("status=9"), std::string::npos);
  EXPECT_NE(x.fix.find("active_mtu"), std::string::npos);
}

// One MTU everywhere (the same host printing it on many queue pairs): quiet; no queue-pair lines
// (NCCL_DEBUG_SUBSYS without NET): quiet.
TEST(NcclIbMtuMismatch, QuietOnOneMtu) {
  const std::string text =
      "h1:88:159 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 1047 mtu 5 LID 3 "
      "subnet-prefix 0  FLID 0 fifoRkey=0x1 fifoLkey=0x1\n"
      "h1:88:159 [1] NCCL INFO NET/IB: NCCL Dev 1 IbDev 1 Port 1 qpn 1048 mtu 5 LID 4 "
      "subnet-prefix 0  FLID 0 fifoRkey=0x1 fifoLkey=0x1\n"
      "h2:77:150 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn 2047 mtu 5 LID 9 "
      "subnet-prefix 0  FLID 0 fifoRkey=0x1 fifoLkey=0x1\n";
  NcclRunFacts f = log_text(text + text);
  EXPECT_EQ(f.ib_port_mtus.size(), 3u) << "distinct host, port and MTU";
  EXPECT_TRUE(log_rule(kId, f).findings.empty());
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/nccl1657-roce-gid-index0-link-local-gid-"
                                        "nccl2.21.log"))
                  .findings.empty());
}

// Before 2.20 NCCL lowers each connection to the smaller MTU: a warning. Without a version line
// it is a warning until the log shows an IB failure; an RCCL log is judged as one of unknown
// release, and says it is RCCL's.
TEST(NcclIbMtuMismatch, AWarningBefore220OrWithoutARelease) {
  const std::string qps =
      "h1:88:159 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 1047 mtu 5 LID 3\n"
      "h2:77:150 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 2047 mtu 4 LID 9\n";
  RuleOutcome o =
      log_rule(kId, log_text("h1:88:88 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n" + qps));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].cause.find("NCCL 2.18.3 runs each connection at the smaller MTU"),
            std::string::npos);
  o = log_rule(kId, log_text(qps));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].cause.find("does not print NCCL's release"), std::string::npos);
  o = log_rule(kId,
               log_text(qps + "h2:77:151 [0] NCCL WARN NET/IB : Got completion from peer "
                              "10.0.0.1<1234> with error 9, opcode 0, len 0, vendor err 138\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  o = log_rule(kId, log_text("h1:88:88 [0] NCCL INFO RCCL version : 2.22.3-HEAD:271856d\n"
                             "h1:88:88 [0] NCCL INFO NCCL version 2.22.3\n" +
                             qps));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
}

// Past the kept ports a host with another MTU still shows: 20,000 ports at 4096, then one at 1024.
TEST(NcclIbMtuMismatch, ALateHostPastTheCapStillCounts) {
  std::string text;
  for (int h = 0; h < 2500; ++h)
    for (int d = 0; d < 8; ++d)
      text += "h" + std::to_string(h) + ":1:2 [" + std::to_string(d) + "] NCCL INFO NET/IB: Dev " +
              std::to_string(d) + " Port 1 qpn 7 mtu 5 LID 1\n";
  text += "late:1:2 [0] NCCL INFO NET/IB: Dev 0 Port 1 qpn 7 mtu 3 LID 1\n";
  NcclRunFacts f = log_text(text);
  EXPECT_EQ(f.ib_ports_folded, 20001u - NcclIbMtus::kPortCap);
  EXPECT_EQ(f.ib_port_mtus.size(), NcclIbMtus::kPortCap + 1) << "the kept ports and the 1024";
  RuleOutcome o = log_rule(kId, f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("1024 bytes on late Dev 0 Port 1"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("or more ports past the first"), std::string::npos);
}

// From 2.29.2 a port's later lines may print the MTU an accept from a smaller peer lowered its
// device to: the port is listed with the largest MTU it printed.
TEST(NcclIbMtuMismatch, APortIsItsLargestMtu) {
  const std::string text =
      "h1:1:2 [0] NCCL INFO NCCL version 2.29.7+cuda12.9\n"
      "h1:1:2 [0] NCCL INFO NET/IB: ncclIbConnect: NCCL Dev 0 IbDev 0 Port 1 qp_num 7 mtu 5 LID 1 "
      "subnet-prefix 0  FLID 0 ctsFifoRkey=0x1 ctsFifoLkey=0x1\n"
      "h2:1:2 [0] NCCL INFO NET/IB: ncclIbConnect: NCCL Dev 0 IbDev 0 Port 1 qp_num 8 mtu 3 LID 2 "
      "subnet-prefix 0  FLID 0 ctsFifoRkey=0x1 ctsFifoLkey=0x1\n"
      "h1:1:2 [0] NCCL INFO NET/IB: ncclIbConnect: NCCL Dev 0 IbDev 0 Port 1 qp_num 9 mtu 3 LID 1 "
      "subnet-prefix 0  FLID 0 ctsFifoRkey=0x1 ctsFifoLkey=0x1\n";
  NcclRunFacts f = log_text(text);
  ASSERT_EQ(f.ib_port_mtus.size(), 2u);
  RuleOutcome o = log_rule(kId, f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].message.find("4096 bytes on h1 IbDev 0 Port 1; 1024 bytes on h2 IbDev 0 "
                                       "Port 1"),
            std::string::npos)
      << o.findings[0].message;
}

// MTUs that differ only between rails (each port number one MTU on every host) meet only the
// connections that cross rails: a warning without an IB failure, even on 2.20+.
TEST(NcclIbMtuMismatch, BetweenRailsIsAWarning) {
  std::string text = "h1:1:1 [0] NCCL INFO NCCL version 2.27.3+cuda12.9\n";
  for (const char* h : {"h1", "h2"})
    for (int d = 0; d < 2; ++d)
      text += std::string(h) + ":1:2 [" + std::to_string(d) + "] NCCL INFO NET/IB: NCCL Dev " +
              std::to_string(d) + " IbDev " + std::to_string(d) + " Port 1 qpn 7 mtu " +
              (d == 0 ? "5" : "4") + " LID 1 subnet-prefix 0  FLID 0 fifoRkey=0x1 fifoLkey=0x1\n";
  RuleOutcome o = log_rule(kId, log_text(text));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].cause.find("between rails"), std::string::npos);
}

}  // namespace
}  // namespace trainready::test
