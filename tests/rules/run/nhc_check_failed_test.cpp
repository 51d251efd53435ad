// nhc-check-failed: NHC's failure lines as LBNL NHC and Azure's AzNHC print them (mej/nhc's
// die(), AzNHC's customTests/*.nhc), read from real outputs: azurehpc-health-checks#142 (the
// public corpus, holdout3) and the health log distributed_nhc's README quotes.
#include <gtest/gtest.h>

#include "catalog/node_reasons.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nhc-check-failed";

// azurehpc-health-checks#142: check_nccl_allreduce at 15.1 of 431 GB/s, and the check's own
// mpirun with NCCL_TOPO_FILE=/azure-nhc/topofiles/ndv5-topo.xml (fixed in 67ca751 / #143).
TEST(NhcCheckFailed, AllReduceWithAForcedTopologyFileNamesTheChecksSetup) {
  const NcclRunFacts f =
      log_text(read_fixture("../nccl-public/azhc142-nd-h200-nhc-allreduce-15gbps-topo-file.log"));
  const std::vector<Finding> all =
      judge_log(read_fixture("../nccl-public/azhc142-nd-h200-nhc-allreduce-15gbps-topo-file.log"));
  ASSERT_FALSE(all.empty());
  const Finding& x = all[0];
  EXPECT_EQ(x.rule_id, kId);
  EXPECT_EQ(x.severity, Severity::kWarning);
  EXPECT_NE(x.message.find("check_nccl_allreduce: NCCL all-reduce bus bandwidth 15.1 GB/s, 3.50 % "
                           "of the 431 GB/s the check expects"),
            std::string::npos)
      << x.message;
  EXPECT_NE(x.message.find("NCCL_TOPO_FILE forced"), std::string::npos) << x.message;
  EXPECT_NE(x.cause.find("NCCL_TOPO_FILE=/azure-nhc/topofiles/ndv5-topo.xml"), std::string::npos)
      << x.cause;
  EXPECT_NE(x.cause.find("67ca751"), std::string::npos);
  EXPECT_NE(x.fix.find("NCCL_TOPO_FILE="), std::string::npos);
  ASSERT_EQ(x.evidence.size(), 3u);  // the line, the command, the meaning's source
  EXPECT_EQ(x.evidence[0].where.line, 1);
  EXPECT_EQ(x.evidence[1].where.line, 2);  // the command line that forces the file
  EXPECT_TRUE(f.framework.topo_file.has_value());
}

// distributed_nhc's health log: one line per node; a finding per distinct check.
TEST(NhcCheckFailed, EachCheckOfAHealthLogIsOneFinding) {
  const RuleOutcome o = log_rule(
      kId, log_text(read_fixture("nhc/aznhc-distributed-nhc-health-log-readme-sample.txt")));
  std::vector<std::string> messages;
  for (const Finding& x : o.findings) messages.push_back(x.message);
  ASSERT_EQ(o.findings.size(), 6u) << ::testing::PrintToString(messages);
  EXPECT_NE(messages[0].find("check_gpu_xid"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("Xid"), std::string::npos);
  // The loopback check without a topology cue: an error on the node, its own meaning.
  EXPECT_NE(messages[1].find("check_nccl_allreduce_ib_loopback: NCCL all-reduce bus bandwidth "
                             "20.7 GB/s, 51.8 % of the 40.0 GB/s"),
            std::string::npos)
      << messages[1];
  EXPECT_EQ(o.findings[1].severity, Severity::kError);
  EXPECT_NE(o.findings[1].cause.find("NCCL_P2P_DISABLE=1"), std::string::npos);
  // Two nodes whose message names no check function: one finding, both lines counted.
  EXPECT_EQ(messages[2],
            "Node mynode-084 failed a health check: Bandwidth is low on device 1. Reported "
            "bandwidth is 7 GB/s. (2 lines like it)");
  EXPECT_NE(o.findings[2].cause.find("check_cuda_bw"), std::string::npos);
  EXPECT_EQ(messages[0].rfind("Node mynode-066 failed the health check check_gpu_xid", 0), 0u);
  // A node that sent back nothing: not known to be healthy, a warning.
  EXPECT_EQ(messages[3],
            "Node mynode-108 sent back no health check result (distributed_nhc: \"No results "
            "reported\")");
  EXPECT_EQ(o.findings[3].severity, Severity::kWarning);
  EXPECT_NE(o.findings[3].fix.find("onetouch_nhc"), std::string::npos);
  EXPECT_NE(messages[4].find("check_hw_ib"), std::string::npos);
  EXPECT_NE(messages[5].find("check_gpu_ecc"), std::string::npos);
  for (const Finding& x : o.findings) {
    EXPECT_FALSE(x.cause.empty());
    EXPECT_FALSE(x.fix.empty());
  }
}

TEST(NhcCheckFailed, QuietOnPassedChecksAndWithoutNhcLines) {
  // AzNHC's pass line (azurehpc-health-checks#152) and a log with no health checker in it.
  const RuleOutcome passed = log_rule(
      kId, log_text("SUCCESS:  nhc:  Health check passed:  check_ib_bw_gdr: IB write bandwidth "
                    "test IB_WRITE_BW passed for IB=mlx5_ib3, IB BW=399.71 Gbps\n"));
  EXPECT_TRUE(passed.findings.empty());
  EXPECT_FALSE(passed.not_applicable.empty());
  const RuleOutcome none = log_rule(
      kId, log_text("node1:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
                    "mpirun -np 8 -x NCCL_TOPO_FILE=/opt/topo.xml ./all_reduce_perf -g 1\n"));
  EXPECT_TRUE(none.findings.empty());
  // Another program's "Health check failed:" (no check function, no NHC on the line).
  EXPECT_TRUE(log_rule(kId, log_text("2024-05-01T10:00:00Z upstream api-7: Health check failed: "
                                     "connection refused\n"))
                  .findings.empty());
}

// The all-reduce check alone (no command line in the log), and with NCCL_TOPO_FILE set empty
// (how AzNHC runs it since 67ca751): the node's own paths are the suspects, an error.
TEST(NhcCheckFailed, AllReduceWithoutAForcedFileIsTheNodes) {
  const std::string fail =
      "ERROR:  nhc:  Health check failed:  check_nccl_allreduce: NCCL allreduce, BUS BW "
      "(expected >=460.0 GB/s, but measured 238.2 GB/s). FaultCode: NHC2010\n";
  for (const std::string& log :
       {fail,
        "mpirun -np 8 -x NCCL_SOCKET_IFNAME=eth0 -x NCCL_TOPO_FILE= "
        "/opt/nccl-tests/build/all_reduce_perf -b 16G -f 2 -g 1 -e 16G -c 1\n" +
            fail}) {
    const RuleOutcome o = log_rule(kId, log_text(log));
    ASSERT_EQ(o.findings.size(), 1u) << log;
    const Finding& x = o.findings[0];
    EXPECT_EQ(x.severity, Severity::kError) << log;
    EXPECT_EQ(x.message.find("forced"), std::string::npos) << x.message;
    EXPECT_NE(x.message.find("51.8 % of the 460 GB/s"), std::string::npos) << x.message;
    EXPECT_NE(x.cause.find("NVLink"), std::string::npos);
    EXPECT_NE(x.fix.find("nvidia-fabricmanager"), std::string::npos);
  }
}

// The same table reads a Slurm drain reason NHC set ("NHC: check_nccl_allreduce: ...").
TEST(NodeReasons, NhcChecksAreReadInDrainReasonsToo) {
  const NodeReasonMeaning* m = node_reason_meaning(
      "NHC: check_nccl_allreduce_ib_loopback: NCCL allreduce, BUS BW (expected >=40.0 GB/s");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->match, "check_nccl_allreduce_ib_loopback");
  ASSERT_NE(node_reason_meaning("NHC: check_nccl_allreduce: NCCL allreduce"), nullptr);
  EXPECT_EQ(node_reason_meaning("NHC: check_nccl_allreduce: x")->match, "check_nccl_allreduce");
  EXPECT_EQ(node_reason_meaning("check_nccl_a", true)->match, "check_nccl_allreduce_ib_loopback");
  EXPECT_EQ(node_reason_meaning("nothing we know"), nullptr);
}

}  // namespace
}  // namespace trainready::test
