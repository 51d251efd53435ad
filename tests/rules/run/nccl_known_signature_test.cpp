#include <gtest/gtest.h>

#include "rules/run/nccl_signatures.h"
#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-known-signature";

TEST(NcclKnownSignature, FiresOnDockerShmWarnWithoutHostPrefix) {
  RuleOutcome o = log_rule(kId, log_fixture("nccl-debug/nccl342-docker-shm-posix-fallocate-nccl2.7.3.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("shm-exhausted"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("--shm-size"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("NVIDIA/nccl#342"), std::string::npos);
  EXPECT_EQ(o.findings[0].evidence.front().where.line, 1);
}

TEST(NcclKnownSignature, ReadsAnInfoLineNoParserPatternKnows) {
  // 2.25.1 on an RTX 5090 prints the decisive line at INFO level.
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/nccltests287-rtx5090-maxsharedmem-nccl2.25.1.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("too old for this GPU"), std::string::npos);
  EXPECT_GT(o.findings[0].rank, 90);
}

TEST(NcclKnownSignature, ReadsPyTorchsLastErrorLine) {
  RuleOutcome o = log_rule(kId, log_fixture("nccl-debug/dfine289-pytorch-duplicate-gpu-nccl2.19.3.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("same GPU"), std::string::npos);
}

TEST(NcclKnownSignature, QuietOnAHealthyRun) {
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log"))
                  .findings.empty());
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/raddet-1node-2gpu-noib-socket-bond0-shm.log"))
                  .findings.empty());
}

TEST(NcclSignatureTable, EveryEntryNamesCauseFixAndSource) {
  for (const NcclSignature& s : kNcclSignatures) {
    EXPECT_FALSE(s.any[0].empty()) << s.id;
    EXPECT_FALSE(s.cause.empty()) << s.id;
    EXPECT_FALSE(s.fix.empty()) << s.id;
    EXPECT_FALSE(s.source.empty()) << s.id;
  }
  // Family 1 is AF_UNIX (a socket-transport bug), not the mixed-version garbage of family 0.
  EXPECT_EQ(match_nccl_signature("ncclSocketInit: connecting to address with family 1 is neither "
                                 "AF_INET(2) nor AF_INET6(10)",
                                 ""),
            nullptr);
}

}  // namespace
}  // namespace trainready::test
