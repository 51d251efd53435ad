#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-system-error";

TEST(NcclSystemError, FiresOnPyTorchsUnhandledSystemError) {
  RuleOutcome o = log_rule(
      kId, log_fixture("nccl-debug/mlengineering-jz-unhandled-system-error-nccl2.7.8.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].evidence.size(), 2u);
  EXPECT_EQ(o.findings[0].evidence[1].where.line, 2);
  // The knob the NCCL user guide names for init failures over unreachable interfaces.
  EXPECT_NE(o.findings[0].fix.find("NCCL_SOCKET_IFNAME"), std::string::npos);
}

// The WARN NCCL printed before returning the error names the failing call: its reading is the
// cause, this finding its consequence (rank 4, after it).
TEST(NcclSystemError, YieldsToTheWarnThatNamesTheCall) {
  RuleOutcome o = log_rule(
      kId, log_text("e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : "
                    "Address family not supported by protocol\n"
                    "NCCL failure common.cu:874 'unhandled system error'\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].rank, 4);
  EXPECT_NE(o.findings[0].cause.find("names the failing call (socket-create-failed"),
            std::string::npos)
      << o.findings[0].cause;
  RuleOutcome alone =
      log_rule(kId, log_text("NCCL failure common.cu:874 'unhandled system error'\n"));
  ASSERT_EQ(alone.findings.size(), 1u);
  EXPECT_EQ(alone.findings[0].rank, 45);
}

// PyTorch's "Last error:" quotes NCCL's last WARN (ncclGetLastError): that WARN's reading names
// the call as well (NVIDIA/Megatron-LM#792: a proxy Connect that failed, NCCL 2.19.3).
TEST(NcclSystemError, YieldsToTheWarnPyTorchQuotesAsLastError) {
  RuleOutcome o = log_rule(
      kId,
      log_text("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/"
               "c10d/ProcessGroupNCCL.cpp:1691, unhandled system error (run with "
               "NCCL_DEBUG=INFO for details), NCCL version 2.19.3\n"
               "ncclSystemError: System call (e.g. socket, malloc) or external library call "
               "failed or device error. \nLast error:\n"
               "[Proxy Service 3] Failed to execute operation Connect from rank 3, retcode 3\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].rank, 4);
  EXPECT_NE(o.findings[0].cause.find("(proxy-execute-operation-failed"), std::string::npos)
      << o.findings[0].cause;
}

// NCCL_GRAPH_FILE set: NCCL returns ncclSystemError when it cannot open that file
// (src/graph/xml.cc, ncclTopoGetXmlGraphFromFile), so the setting comes first; NCCL_TOPO_FILE
// only warns when missing and is not such a cause.
TEST(NcclSystemError, NamesTheGraphFileSetByEnvironment) {
  const std::string head = "h1:7:9 [0] NCCL INFO ";
  RuleOutcome o = log_rule(kId, log_text(head + "NCCL_GRAPH_FILE set by environment to /x/g.xml\n" +
                                         "ncclSystemError: System call (e.g. socket, malloc) or "
                                         "external library call failed or device error.\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("NCCL_GRAPH_FILE set by environment (to /x/g.xml)"),
            std::string::npos)
      << o.findings[0].cause;
  EXPECT_NE(o.findings[0].cause.find("Most likely NCCL could not open the graph file"),
            std::string::npos)
      << o.findings[0].cause;
  EXPECT_EQ(o.findings[0].fix.rfind("Unset NCCL_GRAPH_FILE", 0), 0u) << o.findings[0].fix;
  RuleOutcome topo =
      log_rule(kId, log_text(head + "NCCL_TOPO_FILE set by environment to /x/t.xml\n" +
                             "ncclSystemError: System call (e.g. socket, malloc) or "
                             "external library call failed or device error.\n"));
  ASSERT_EQ(topo.findings.size(), 1u);
  EXPECT_EQ(topo.findings[0].cause.find("NCCL_GRAPH_FILE"), std::string::npos);
  EXPECT_NE(topo.findings[0].cause.find("Most likely /dev/shm"), std::string::npos);
}

// A WARN that names the call is the account: no ranked list of other causes beside it, even
// when the log shows a container (review: a socket WARN read as /dev/shm).
TEST(NcclSystemError, NoRankedCausesWhenAWarnNamesTheCall) {
  RuleOutcome o = log_rule(
      kId, log_text("$ docker run --gpus all --shm-size=16g nvcr.io/nvidia/pytorch:24.01-py3\n"
                    "e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation "
                    "failed : Address family not supported by protocol\n"
                    "NCCL failure common.cu:874 'unhandled system error'\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].rank, 4);
  EXPECT_EQ(o.findings[0].cause.find("/dev/shm"), std::string::npos) << o.findings[0].cause;
  EXPECT_EQ(o.findings[0].fix.find("--shm-size"), std::string::npos) << o.findings[0].fix;
}

TEST(NcclSystemError, QuietOtherwise) {
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/raddet-1node-2gpu-noib-socket-bond0-shm.log"))
                  .findings.empty());
}

}  // namespace
}  // namespace trainready::test
