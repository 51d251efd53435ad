#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-warnings";

TEST(NcclWarnings, FiresOnOtherWarnAndCudaFailure) {
  RuleOutcome o = log_rule(kId, log_text("h:1:2 [0] init.cc:1 NCCL WARN Something unexpected\n"
                                         "h:1:2 [0] enqueue.cc:2 NCCL WARN Cuda failure 'some "
                                         "error no entry knows'\n"));
  // Every "Cuda failure '...'" is a NCCL message site the knowledge base reads (checks.yaml,
  // checks-cuda-failure), so only the WARN no entry knows is quoted back.
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].evidence.front().text.find("Something unexpected"), std::string::npos);
}

// A CUDA error the knowledge base reads (passthrough.yaml) is nccl-known-signature's finding,
// not a generic "CUDA error inside NCCL" here.
TEST(NcclWarnings, LeavesCudaErrorsTheKnowledgeBaseReads) {
  EXPECT_TRUE(log_rule(kId, log_text("h:1:2 [0] enqueue.cc:2 NCCL WARN Cuda failure 'an illegal "
                                     "memory access was encountered'\n"))
                  .findings.empty());
}

TEST(NcclWarnings, QuietWhenOtherRulesExplainEveryWarn) {
  EXPECT_TRUE(
      log_rule(kId, log_fixture("nccl-debug/mlengineering-azure-2node-ib-error12-timeout.log"))
          .findings.empty());
  EXPECT_TRUE(log_rule(kId, log_synthetic("libibverbs-missing.log")).findings.empty());
}

// A WARN is left to another finding only when the log reader filed it under that finding's
// problem: a completion error whose words a bad paste ran together ("completionfrom") files
// under none, and neither does a connect WARN whose errno no connection rule reads. Before,
// "Got completion" and "Connect to" anywhere in a WARN dropped it, and such a log got
// "No findings".
TEST(NcclWarnings, QuotesAWarnNoOtherFindingReadsWhateverItsWords) {
  RuleOutcome o = log_rule(
      kId, log_text("h:1:2 [0] transport/net_ib.cc:1296 NCCL WARN NET/IB : Got completionfrom "
                    "peer 10.2.0.5<33092> with error 12, opcode 0, len\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].evidence.front().text.find("completionfrom"), std::string::npos);
  // As NCCL prints it, the completion error is nccl-ib-completion-error's.
  EXPECT_TRUE(log_rule(kId, log_text("h:1:2 [0] transport/net_ib.cc:1296 NCCL WARN NET/IB : Got "
                                     "completion from peer 10.2.0.5<33092> with error 12, "
                                     "opcode 0, len 0, vendor err 129 (Recv)\n"))
                  .findings.empty());
}

// A WARN the knowledge base explains is its finding, not quoted back here (the old signature
// table knew only "family 0"; the entry matches the site as NCCL prints it).
TEST(NcclWarnings, LeavesWarnsTheKnowledgeBaseExplains) {
  EXPECT_TRUE(log_rule(kId, log_text("h:1:2 [0] misc/socket.cc:710 NCCL WARN ncclSocketInit: "
                                     "connecting to address 10.0.0.9 with family 12 is neither "
                                     "AF_INET(2) nor AF_INET6(10)\n"))
                  .findings.empty());
}

// What the tool cannot place it says, with what to capture next.
TEST(NcclWarnings, AnUnplacedWarnSaysWhatToCaptureNext) {
  RuleOutcome o = log_rule(kId, log_text("h:1:2 [0] init.cc:1 NCCL WARN Something unexpected\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].fix.find("NCCL_DEBUG_SUBSYS"), std::string::npos);
  // A bare result code (nccl-tests, a title-only paste) is framework-nccl-error's reading,
  // which says to capture the WARN behind it.
  const NcclRunFacts bare = log_text(
      "Test NCCL failure common.cu:1012 'internal error - please report this issue to the NCCL "
      "developers / '\n");
  EXPECT_TRUE(log_rule(kId, bare).findings.empty());
  o = log_rule("framework-nccl-error", bare);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].fix.find("NCCL_DEBUG=INFO"), std::string::npos) << o.findings[0].fix;
}

// The framework's result code after a failure the knowledge base reads is that failure's result
// (NCCL WARNs where the call failed, every caller returns the code): not quoted again as an
// unexplained internal error. The same result line before any such failure still is.
TEST(NcclWarnings, AResultAfterAReadFailureIsThatFailure) {
  const std::string warn =
      "host1:1234:1234 [0] bootstrap.cc:45 NCCL WARN Bootstrap : no socket interface found\n";
  const std::string result =
      "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, internal error, NCCL version "
      "2.14.3\n";
  EXPECT_TRUE(log_rule(kId, log_text(warn + result)).findings.empty());
  RuleOutcome o = log_rule(kId, log_text(result + warn));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("internal error"), std::string::npos)
      << o.findings[0].message;
  // Far below the WARN with no "-> code" trail between them (a long run in between): not shown
  // to be its result. With NCCL's trail after the WARN (the chain began there) it is.
  std::string run;
  for (int i = 0; i < 20; ++i) run += "step " + std::to_string(i) + " loss 0.5\n";
  EXPECT_EQ(log_rule(kId, log_text(warn + run + result)).findings.size(), 1u);
  const std::string trail = "host1:1234:1234 [0] NCCL INFO bootstrap.cc:46 -> 3\n";
  EXPECT_TRUE(log_rule(kId, log_text(warn + trail + run + result)).findings.empty());
  // The trail returned an internal error: a CUDA error far below it is another failure.
  EXPECT_EQ(log_rule(kId, log_text(warn + trail + run +
                                   "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, "
                                   "unhandled cuda error, NCCL version 2.14.3\n"))
                .findings.size(),
            1u);
}

// PyTorch prints the result, then NCCL's last WARN under "Last error:" (pytorch/pytorch#121209:
// "Attribute busid of node nic not found"): the knowledge base's reading of that message is the
// finding, not "mismatched collectives"; a result with nothing read under it still is one.
TEST(NcclWarnings, AResultWithItsLastErrorBelowIsThatFailure) {
  const std::string result =
      "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, internal "
      "error - please report this issue to the NCCL developers, NCCL version 2.19.3\n"
      "ncclInternalError: Internal check failed.\n";
  EXPECT_TRUE(
      log_rule(kId, log_text(result + "Last error:\nAttribute busid of node nic not found\n"))
          .findings.empty());
  EXPECT_EQ(log_rule(kId, log_text(result + "Last error:\n\n")).findings.size(), 1u);
  // A message read right under the result but not printed under "Last error:" is not it.
  EXPECT_EQ(
      log_rule(kId, log_text(result + "Attribute busid of node nic not found\n")).findings.size(),
      1u);
}

// Three ranks each print the CUDA failure NCCL WARNed, its trail and the framework's result
// (more lines than the few kept as examples): one failure, the knowledge base's reading.
TEST(NcclWarnings, ARankByRankPasteOfOneCudaFailureIsThatFailure) {
  std::string log;
  for (int r = 0; r < 3; ++r) {
    const std::string h = "gpu" + std::to_string(r) + ":10" + std::to_string(r) + ":11 [0] ";
    log += h + "enqueue.cc:215 NCCL WARN Cuda failure 'out of memory'\n" + h +
           "NCCL INFO enqueue.cc:216 -> 1\n";
    for (int i = 0; i < 25; ++i) log += "  File \"train.py\", line " + std::to_string(i) + "\n";
    log +=
        "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled cuda error, NCCL "
        "version 2.18.1\nncclUnhandledCudaError: Call to CUDA function failed.\n";
  }
  EXPECT_TRUE(log_rule(kId, log_text(log)).findings.empty());
}

// nccl-tests' own failure line and no NCCL line that says why (NVIDIA/nccl-tests#41's shape):
// framework-nccl-error reads the result with its ranked causes; quoting the same line again here
// as "internal error" would be a second account of one failure.
TEST(NcclWarnings, LeavesAResultFrameworkNcclErrorReads) {
  const NcclRunFacts f = log_text(
      "# nThread 1 nGpus 4 minBytes 8 maxBytes 134217728 step: 2(factor)\n"
      "ip-0AB85F07: Test NCCL failure common.cu:775 'internal error'\n");
  EXPECT_EQ(log_rule("framework-nccl-error", f).findings.size(), 1u);
  EXPECT_TRUE(log_rule(kId, f).findings.empty());
  // Beside a crash inside NCCL framework-nccl-error reads the crash, not the result: the result
  // is still quoted here.
  const NcclRunFacts g = log_text(
      "Caught signal 11 (Segmentation fault: address not mapped)\n"
      "#3 0x00007f in ncclProxyService(void*) () from libnccl.so.2\n"
      "ip-0AB85F07: Test NCCL failure common.cu:775 'internal error'\n");
  RuleOutcome crash = log_rule("framework-nccl-error", g);
  ASSERT_EQ(crash.findings.size(), 1u);
  EXPECT_NE(crash.findings[0].message.find("inside NCCL"), std::string::npos);
  EXPECT_EQ(log_rule(kId, g).findings.size(), 1u);
}

// libfabric's own warnings (FI_LOG_LEVEL=warn): one the knowledge base reads is its finding
// (lf-efa-hmem-no-rdma-read, libfabric efa_user_info.c @ v1.16.0); one it does not is quoted here,
// so a log holding a warning never reads "No findings".
TEST(NcclWarnings, QuotesLibfabricWarningsNoEntryReads) {
  const std::string known =
      "libfabric:462:1673041636:efa:core:rxr_info_to_rxr():506<warn> FI_HMEM capability "
      "requires RDMA, which this device does not support.\n";
  EXPECT_TRUE(log_rule(kId, log_text(known)).findings.empty());
  const std::string unknown =
      "libfabric:7:1700000000::efa:ep_ctrl:efa_rdm_ep_open():99<warn> Something new happened\n";
  RuleOutcome o = log_rule(kId, log_text(known + unknown + unknown));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("libfabric warning(s)"), std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].message.find("3 line(s) of libfabric's in all"), std::string::npos)
      << o.findings[0].message;
  ASSERT_EQ(o.findings[0].evidence.size(), 1u);
  EXPECT_EQ(o.findings[0].evidence[0].where.line, 2);
  // libfabric's text is not one of NCCL's messages, whatever it says: only the entries written
  // from libfabric's source (and text passed through from other libraries) read it.
  const NcclRunFacts g = log_text(
      "libfabric:7:1700000000::tcp:ep_data:xnet_recv():12<warn> Message truncated : received 256 "
      "bytes instead of 4\n");
  EXPECT_TRUE(log_rule("nccl-known-signature", g).findings.empty());
  EXPECT_TRUE(log_rule("nccl-message", g).findings.empty());
  EXPECT_EQ(log_rule(kId, g).findings.size(), 1u);
}

// UCX's own warnings and errors (WARN by default): quoted, one finding for the library, an error
// named so; a NCCL log without them stays quiet.
TEST(NcclWarnings, QuotesUcxWarningsAndErrors) {
  RuleOutcome o =
      log_rule(kId, analyze_nccl_logs({std::string(TR_TEST_DATA) +
                                       "/nccl-shapes/ucx4966-mpirun-ucx-error-invalid-gid.log"}));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("UCX error(s)"), std::string::npos) << o.findings[0].message;
  EXPECT_NE(o.findings[0].message.find("4 line(s) of UCX's in all"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("ucx_info -d"), std::string::npos);
  EXPECT_NE(o.findings[0].evidence[0].text.find("Invalid gid[0]"), std::string::npos);
  const std::string warn =
      "[1700000000.123456] [gpu1:12345:0]    ucp_context.c:1123 UCX  WARN  transport 'ud' is not "
      "available\n";
  o = log_rule(kId, log_text("gpu1:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n" + warn));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("UCX warning(s)"), std::string::npos);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);  // routine ones are common
  EXPECT_TRUE(log_rule(kId, log_text("gpu1:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"))
                  .findings.empty());
}

// A UCX fatal error (abort() follows it): an error, named so, behind mpirun's --timestamp-output
// and --tag-output prefix as openucx/ucx#2215 posted it.
TEST(NcclWarnings, AUcxFatalErrorIsAnError) {
  const RuleOutcome o = log_rule(
      kId, log_text("Wed Jan 24 16:28:44 2018[1,99]<stderr>:[clx-orion-045:19578:0:19578]    "
                    "rc_iface.h:476  Assertion `found > 0' failed\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("UCX fatal error(s)"), std::string::npos)
      << o.findings[0].message;
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].cause.find("abort()"), std::string::npos);
  EXPECT_NE(o.findings[0].evidence[0].text.find("Assertion `found > 0' failed"), std::string::npos);
}

// NCCL's result quoted alone (an issue title: "unhandled cuda error, NCCL version 2.7.8") gets the
// result's ranked causes, as framework-nccl-error reads the same result from a framework's line;
// "invalid usage" alone is ncclInvalidUsage's.
TEST(NcclWarnings, AQuotedResultGetsTheResultsRankedCauses) {
  RuleOutcome o = log_rule(kId, log_text("unhandled cuda error, NCCL version 2.7.8\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("ncclUnhandledCudaError"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("Most likely"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("no code for this GPU's architecture"), std::string::npos);
  EXPECT_EQ(o.findings[0].rank, 8);
  // The result text alone, without the word NCCL (NVIDIA/nccl#112's title): NCCL's own words.
  RuleOutcome t = log_rule(
      kId, log_text("`unhandled cuda error` when running the test executable after `make`\n"));
  ASSERT_EQ(t.findings.size(), 1u);
  EXPECT_NE(t.findings[0].cause.find("ncclUnhandledCudaError"), std::string::npos);
  EXPECT_TRUE(log_rule(kId, log_text("an unhandled error in my cuda code\n")).findings.empty());
  RuleOutcome u =
      log_rule(kId, log_text("[rank1]: NCCL error ... invalid usage ... ncclCommInitRank\n"));
  ASSERT_EQ(u.findings.size(), 1u);
  EXPECT_NE(u.findings[0].cause.find("ncclInvalidUsage"), std::string::npos);
}

}  // namespace
}  // namespace trainready::test
