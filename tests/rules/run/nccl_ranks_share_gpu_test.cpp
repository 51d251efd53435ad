#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-ranks-share-gpu";

// NVIDIA/TensorRT-LLM#9263's shape: two processes of one pod, ranks 0 and 1 of a 2-rank
// communicator, both on busId 100000; the excerpt ends before NCCL's "Duplicate GPU detected".
const std::string kTwo =
    "worker-0:42:982 [0] NCCL INFO ncclCommInitRank comm 0x7a12 rank 0 nranks 2 cudaDev 0 nvmlDev "
    "0 busId 100000 commId 0xaa9b - Init START\n"
    "worker-0:43:43 [0] NCCL INFO ncclCommInitRank comm 0x397e rank 1 nranks 2 cudaDev 0 nvmlDev 0 "
    "busId 100000 commId 0xaa9b - Init START\n";

TEST(NcclRanksShareGpu, FiresOnTwoRanksOfOneHostOnOneBusId) {
  const RuleOutcome o = log_rule(kId, log_text(kTwo));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].message.find("Ranks 0 and 1 of a 2-rank communicator"), std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].message.find("GPU 100000"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("Duplicate GPU detected"), std::string::npos);
  ASSERT_EQ(o.findings[0].evidence.size(), 2u);
}

TEST(NcclRanksShareGpu, QuietOnOwnGpusOtherHostsOrNcclsOwnWarn) {
  // Each rank on its own GPU.
  std::string own = kTwo;
  own.replace(own.rfind("busId 100000"), 12, "busId 200000");
  EXPECT_TRUE(log_rule(kId, log_text(own)).findings.empty());
  // The same bus id on two hosts: two machines, two GPUs.
  std::string hosts = kTwo;
  hosts.replace(hosts.rfind("worker-0:43"), 11, "worker-1:43");
  EXPECT_TRUE(log_rule(kId, log_text(hosts)).findings.empty());
  // NCCL's own WARN is the knowledge base's reading (duplicate-gpu), not this rule's.
  EXPECT_TRUE(log_rule(kId, log_text(kTwo + "worker-0:43:43 [0] init.cc:737 NCCL WARN Duplicate "
                                            "GPU detected : rank 1 and rank 0 both on CUDA device "
                                            "100000\n"))
                  .findings.empty());
  // A healthy single-node log.
  EXPECT_TRUE(log_rule(kId, log_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log"))
                  .findings.empty());
}

}  // namespace
}  // namespace trainready::test
