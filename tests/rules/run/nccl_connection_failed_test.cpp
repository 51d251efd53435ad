#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-connection-failed";

TEST(NcclConnectionFailed, FiresOnConnectionRefused) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/mlengineering-jz-socket-connect-refused-warn.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("10.148.3.247<56821>"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("already exited"), std::string::npos);
}

TEST(NcclConnectionFailed, FiresOnRemoteExit) {
  RuleOutcome o = log_rule(kId, log_text("h:1:2 [0] proxy.cc:1 NCCL WARN [Service thread] remote "
                                         "process exited or there was a network error\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("died"), std::string::npos);
  // "or there was a network error": the interface may be the cause (DeepSpeedExamples#845).
  EXPECT_NE(o.findings[0].fix.find("NCCL_SOCKET_IFNAME"), std::string::npos) << o.findings[0].fix;
  // A connection the peer closed was up: the interface and a firewall are not in question
  // (nccl#1485, a peer on the same host dead of an out-of-memory error).
  const RuleOutcome closed =
      log_rule(kId, log_text("node2:24881:25566 [2] misc/socket.cc:49 NCCL WARN socketProgress: "
                             "Connection closed by remote peer node2<47247>\n"));
  ASSERT_EQ(closed.findings.size(), 1u);
  EXPECT_EQ(closed.findings[0].fix.find("NCCL_SOCKET_IFNAME"), std::string::npos)
      << closed.findings[0].fix;
  EXPECT_NE(closed.findings[0].fix.find("first error in time"), std::string::npos);
}

// GPUDirect-TCPXO's UNIX socket to its RxDM is a local daemon's (data/nccl-kb/
// net-plugin-gcp-tcpxo.yaml, local_socket): its "Broken pipe" is no peer that went away, and its
// reading is the finding (NVIDIA/Megatron-LM#4660's line). NCCL's own socket failing the same
// way, or a peer named beside it, still is.
TEST(NcclConnectionFailed, QuietOnALocalDaemonsSocket) {
  const std::string rxdm =
      "a:4821:5120 [2] tcpdirect_plugin/fastrak_offload/fastrak_plugin.cc:180 NCCL WARN "
      "NET/FasTrak 2026-05-06T10:11:12.223456+00:00: FAILED_PRECONDITION: receive() error: 32: "
      "Broken pipe\n";
  EXPECT_TRUE(log_rule(kId, log_text(rxdm)).findings.empty());
  EXPECT_EQ(log_rule(kId, log_text(rxdm + "b:7:8 [0] misc/socket.cc:64 NCCL WARN socketProgress: "
                                          "Connection closed by remote peer "
                                          "10.0.0.2<43210>\n"))
                .findings.size(),
            1u);
  EXPECT_EQ(log_rule(kId, log_text("b:7:8 [0] misc/socket.cc:64 NCCL WARN Net : Call to send "
                                   "failed : Broken pipe\n"))
                .findings.size(),
            1u);
  // More RxDM lines than the examples kept, then NCCL's own socket failing: still a finding.
  std::string many;
  for (int k = 0; k < 7; ++k)
    many += "a:4821:" + std::to_string(5120 + k) +
            " [2] tcpdirect_plugin/fastrak_offload/fastrak_plugin.cc:180 NCCL WARN NET/FasTrak "
            "2026-05-06T10:11:12.223456+00:00: FAILED_PRECONDITION: receive() error: 32: Broken "
            "pipe\n";
  EXPECT_EQ(log_rule(kId, log_text(many + "b:7:8 [0] misc/socket.cc:64 NCCL WARN Net : Call to "
                                          "send failed : Broken pipe\n"))
                .findings.size(),
            1u);
  EXPECT_TRUE(log_rule(kId, log_text(many)).findings.empty());
}

// ETIMEDOUT from a receive on a connection that was up (horovod/horovod#3611 mid-training): the
// peer or the path went away, not an unreachable address; a connect that timed out is one.
TEST(NcclConnectionFailed, TimedOutReceiveIsAConnectionThatStopped) {
  RuleOutcome o =
      log_rule(kId, log_text("w:83:2526 [0] misc/socket.cc:503 NCCL WARN Net : Call to recv from "
                             "100.96.188.199<41468> failed : Connection timed out\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("was up and then stopped"), std::string::npos)
      << o.findings[0].cause;
  EXPECT_EQ(o.findings[0].fix.find("NCCL_SOCKET_IFNAME"), std::string::npos);
  RuleOutcome c = log_rule(
      kId, log_text("w:83:2526 [0] misc/socket.cc:456 NCCL WARN socketStartConnect: Connect to "
                    "10.1.0.5<41468> failed : Connection timed out\n"));
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_NE(c.findings[0].cause.find("not reachable from here"), std::string::npos)
      << c.findings[0].cause;
}

TEST(NcclConnectionFailed, QuietOtherwise) {
  EXPECT_TRUE(
      log_rule(kId, log_fixture("nccl-debug/mlengineering-azure-2node-ib-error12-timeout.log"))
          .findings.empty());
}

}  // namespace
}  // namespace trainready::test
