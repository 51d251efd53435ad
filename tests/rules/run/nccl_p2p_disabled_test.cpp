#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-p2p-disabled";

TEST(NcclP2pDisabled, FiresOnTheVariable) {
  RuleOutcome o = log_rule(
      kId,
      log_fixture("nccl-debug/nccl-ebpf-1node-rtx5090-tuning-table-algo-select-nccl2.29.7.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].evidence[0].where.line, 3);
}

TEST(NcclP2pDisabled, FiresOnShmOnlyConnections) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/raddet-1node-2gpu-noib-socket-bond0-shm.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("SHM"), std::string::npos);
}

// SHM between GPUs that NCCL set NVLS up on (NVIDIA/nccl#1609, 4 x H800 split from a parent
// communicator): NVLink is there, so the finding says P2P was turned off, not "no NVLink".
TEST(NcclP2pDisabled, ShmBesideNvlsIsP2pTurnedOffNotMissingNvlink) {
  const std::string shm =
      "tj5-sc-ai-h800r-dev01:533:1765 [2] NCCL INFO Channel 07 : 2[6] -> 3[7] via "
      "SHM/direct/direct\n"
      "tj5-sc-ai-h800r-dev01:534:1763 [3] NCCL INFO Channel 07 : 3[7] -> 0[4] via "
      "SHM/direct/direct\n";
  RuleOutcome nvls = log_rule(
      kId, log_text(shm + "tj5-sc-ai-h800r-dev01:534:1763 [3] NCCL INFO NVLS comm 0x7f1928e6e060 "
                          "headRank 3 nHeads 4 buffSize 4194304 memSize 2097152 nvlsPerRankSize "
                          "201326592 nvlsTotalSize 805306368\n"));
  ASSERT_EQ(nvls.findings.size(), 1u);
  const Finding& x = nvls.findings[0];
  EXPECT_NE(x.message.find("NVLink SHARP"), std::string::npos) << x.message;
  EXPECT_EQ(x.cause.find("no NVLink"), std::string::npos) << x.cause;
  EXPECT_NE(x.fix.find("NCCL_P2P_LEVEL"), std::string::npos) << x.fix;
  EXPECT_EQ(x.evidence.back().where.line, 3);
  // Without NVLS the missing-link reading stays.
  RuleOutcome plain = log_rule(kId, log_text(shm));
  ASSERT_EQ(plain.findings.size(), 1u);
  EXPECT_NE(plain.findings[0].cause.find("no NVLink"), std::string::npos);
}

TEST(NcclP2pDisabled, QuietWithP2p) {
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log"))
                  .findings.empty());
}

}  // namespace
}  // namespace trainready::test
