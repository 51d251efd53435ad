#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-inter-node-not-ib";

TEST(NcclInterNodeNotIb, FiresWithIbDisabledAcrossNodes) {
  RuleOutcome o = log_rule(kId, log_synthetic("socket-ib-disabled-2node.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& f = o.findings[0];
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_NE(f.cause.find("NCCL_IB_DISABLE=1"), std::string::npos);
  bool env_line = false;
  for (const auto& e : f.evidence)
    env_line = env_line || e.text.find("NCCL_IB_DISABLE set by environment") != std::string::npos;
  EXPECT_TRUE(env_line);
  EXPECT_FALSE(f.subsumes.empty());
}

TEST(NcclInterNodeNotIb, NamesMissingLibibverbs) {
  RuleOutcome o = log_rule(kId, log_synthetic("libibverbs-missing.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("libibverbs"), std::string::npos);
  EXPECT_EQ(o.findings[0].evidence.back().where.line, 3);
}

TEST(NcclInterNodeNotIb, SingleNodeWithoutIbIsANote) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/raddet-1node-2gpu-noib-socket-bond0-shm.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  EXPECT_NE(o.findings[0].cause.find("no usable InfiniBand device"), std::string::npos);
}

// One host pasted from a job whose communicator is larger than one 8-GPU node (sgl-project/
// sglang#3398: 16 ranks on H20 nodes): not called a single-node run.
TEST(NcclInterNodeNotIb, OneHostOfALargerCommunicatorIsAWarning) {
  auto run = [](int nranks) {
    const std::string head = "pod-a:75205:75205 [1] NCCL INFO ";
    return log_rule(
        kId,
        log_text(head + "NET/IB : No device found.\n" + head + "Using network Socket\n" + head +
                 "ncclCommInitRank comm 0xb9c26e0 rank 1 nranks " + std::to_string(nranks) +
                 " cudaDev 1 nvmlDev 1 busId 7e000 commId 0x898b6d578585998c - "
                 "Init START\n"));
  };
  RuleOutcome o = run(16);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].message.find("a communicator of 16 ranks"), std::string::npos)
      << o.findings[0].message;
  RuleOutcome eight = run(8);
  ASSERT_EQ(eight.findings.size(), 1u);
  EXPECT_EQ(eight.findings[0].severity, Severity::kInfo);
  // NCCL's own "nNodes 1" (16 GPUs in one HGX-2 / DGX-2) is a single-node run.
  const std::string head = "dgx2:7:7 [0] NCCL INFO ";
  auto init = [&](const char* nnodes) {
    const std::string comm =
        "ncclCommInitRank comm 0x1 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 7000 commId 0xabc";
    return log_rule(
        kId, log_text(head + "NET/IB : No device found.\n" + head + "Using network Socket\n" +
                      head + comm + " - Init START\n" + head + "comm 0x1 rank 0 nRanks 16 " +
                      nnodes + " localRank 0 MNNVL 0\n" + head + comm + " - Init COMPLETE\n"));
  };
  RuleOutcome dgx2 = init("nNodes 1 localRanks 16");
  ASSERT_EQ(dgx2.findings.size(), 1u);
  EXPECT_EQ(dgx2.findings[0].severity, Severity::kInfo) << dgx2.findings[0].message;
  RuleOutcome two = init("nNodes 2 localRanks 8");
  ASSERT_EQ(two.findings.size(), 1u);
  EXPECT_EQ(two.findings[0].severity, Severity::kError) << two.findings[0].message;
}

// A run that failed (an error trail) is read for its failure first; a WARN no rule reads is no
// failure (NVIDIA/nccl#952 failed in a proxy Connect on NET/Socket).
TEST(NcclInterNodeNotIb, AFailureComesFirst) {
  const std::string a = "a:1:1 [0] NCCL INFO ", b = "b:2:2 [0] NCCL INFO ";
  const std::string run = a + "Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n" + b +
                          "Channel 00/0 : 1[0] -> 0[0] [send] via NET/Socket/0\n";
  RuleOutcome ok = log_rule(kId, log_text(run));
  ASSERT_EQ(ok.findings.size(), 1u);
  EXPECT_EQ(ok.findings[0].rank, 75);
  RuleOutcome benign = log_rule(
      kId, log_text(run + "a:1:1 [0] graph/xml.cc:827 NCCL WARN Could not find real path of "
                          "/sys/class/pci_bus/0000:00/../../0000:00:1f.0\n"));
  ASSERT_EQ(benign.findings.size(), 1u);
  EXPECT_EQ(benign.findings[0].rank, 75);
  RuleOutcome failed =
      log_rule(kId, log_text(run + "a:1:1 [0] NCCL INFO transport/net_socket.cc:336 -> 2\n"));
  ASSERT_EQ(failed.findings.size(), 1u);
  EXPECT_EQ(failed.findings[0].rank, 9);
}

TEST(NcclInterNodeNotIb, QuietOnInfiniBand) {
  EXPECT_TRUE(
      log_rule(kId, log_fixture("nccl-debug/bigscience-jz-16node-v100-netib-hfi1-nccl2.7.8.log"))
          .findings.empty());
  EXPECT_TRUE(log_rule(kId, log_synthetic("azure-ndv5-gdrdma-2node.log")).findings.empty());
}

TEST(NcclInterNodeNotIb, SkipsWhenTheLogSaysNothingOfTheNetwork) {
  EXPECT_TRUE(
      log_rule(kId, log_fixture("nccl-debug/mlengineering-jz-socket-connect-refused-warn.log"))
          .skipped);
}

// "wrong type 4 != 3": a peer came with NET/IB's socket type to this rank's NET/Socket listener
// (misc/socket.cc, include/socket.h): the ranks chose different networks, which is the cause,
// not "sockets without saying why". Another WARN leaves the generic reading.
TEST(NcclInterNodeNotIb, WrongSocketTypeSaysTheRanksChoseDifferentNetworks) {
  const std::string conn =
      "user:16899:16949 [0] NCCL INFO Channel 01/0 : 9[1] -> 0[0] [receive] via NET/Socket/0\n";
  RuleOutcome o = log_rule(
      "nccl-inter-node-not-ib",
      log_text(conn +
               "user:16899:16961 [0] misc/socket.cc:441 NCCL WARN socketFinalizeAccept: wrong "
               "type 4 != 3\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("different networks"), std::string::npos);
  o = log_rule(
      "nccl-inter-node-not-ib",
      log_text(conn + "user:16899:16961 [0] misc/socket.cc:441 NCCL WARN socketFinalizeAccept: "
                      "wrong type 1 != 2\n"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].cause.find("different networks"), std::string::npos);
}

// aws-ofi-nccl loaded and failed (NVIDIA/nccl#229: "NET/OFI Could not find any optimal
// provider"): NCCL tried its own IB (no libibverbs on an EFA host) and then sockets. The plugin's
// failure is the cause, and libibverbs' absence is no advice to install it.
TEST(NcclInterNodeNotIb, AFailedOfiPluginIsTheCauseNotLibibverbs) {
  const std::string log =
      "# Using devices\n"
      "#   Rank  0 Pid  26565 on ip-172-31-9-96 device  0 [0x00] Tesla V100-SXM2-32GB\n"
      "#   Rank  1 Pid  25883 on ip-172-31-14-244 device  0 [0x00] Tesla V100-SXM2-32GB\n"
      "ip-172-31-9-96:26565:26565 [0] NCCL INFO NET/Socket : Using [0]eth0:172.31.9.96<0>\n"
      "ip-172-31-9-96:26565:26565 [0] get_ofi_provider:312 NCCL WARN NET/OFI Could not find any "
      "optimal provider\n"
      "ip-172-31-9-96:26565:26565 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open "
      "libibverbs.so[.1]\n";
  NcclRunFacts f = log_text(log);
  RuleOutcome o = log_rule("nccl-inter-node-not-ib", f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("aws-ofi-nccl"), std::string::npos);
  EXPECT_EQ(o.findings[0].fix.find("Install rdma-core"), std::string::npos);
  RuleOutcome m = log_rule("nccl-message", f);
  bool ibverbs = false;
  for (const Finding& x : m.findings) {
    if (x.message.find("ib-libibverbs-not-found") == std::string::npos) continue;
    ibverbs = true;
    EXPECT_EQ(x.cause.rfind("The AWS OFI plugin", 0), 0u) << x.cause;
  }
  EXPECT_TRUE(ibverbs);
}

// NCCL_NET=Socket chose sockets even though the plugin also failed (NCCL initialises it before
// the name check): the setting is the cause.
TEST(NcclInterNodeNotIb, NcclNetSocketBeforeAFailedPlugin) {
  const std::string log =
      "a:1:1 [0] NCCL INFO NCCL_NET set by environment to Socket\n"
      "a:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n"
      "a:1:1 [0] get_ofi_provider:312 NCCL WARN NET/OFI Could not find any optimal provider\n";
  RuleOutcome o = log_rule("nccl-inter-node-not-ib", log_text(log));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("NCCL_NET=Socket"), std::string::npos) << o.findings[0].cause;
}

}  // namespace
}  // namespace trainready::test
