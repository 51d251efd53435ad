#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-gdrdma-off";

TEST(NcclGdrdmaOff, FiresWithNoModule) {
  RuleOutcome o = log_rule(kId, log_synthetic("gdr-no-module.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("nvidia-peermem"), std::string::npos);
  EXPECT_EQ(o.findings[0].subsumes, std::vector<std::string>{"gpudirect-rdma-disabled"});
}

TEST(NcclGdrdmaOff, FiresOnOmniPathWithoutGdr) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/bigscience-jz-16node-v100-netib-hfi1-nccl2.7.8.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("368"), std::string::npos);
}

TEST(NcclGdrdmaOff, QuietWhenEveryConnectionUsesGdrdma) {
  EXPECT_TRUE(log_rule(kId, log_synthetic("azure-ndv5-gdrdma-2node.log")).findings.empty());
  EXPECT_TRUE(
      log_rule(kId, log_fixture(
                        "nccl-debug/"
                        "nccltests350-2node-a100pcie-roce-ib-gdrdma-gather-dropoff-nccl2.16.5.log"))
          .findings.empty());
}

TEST(NcclGdrdmaOff, QuietOnSingleNodeP2p) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/bigscience-jz-1node-4xv100-p2p-nccl2.7.8.log"));
  EXPECT_FALSE(o.skipped);
  EXPECT_TRUE(o.findings.empty());
}

TEST(NcclGdrdmaOff, DisabledForHcaIsAFindingOnItsOwnWithTheVersionsCause) {
  RuleOutcome o = log_rule(
      kId, log_fixture("nccl-debug/nccl1676-dgxos-gdr-disabled-nvidia-peermem-nccl2.22.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("mlx5_0"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("2.23.4"), std::string::npos);
}

TEST(NcclGdrdmaOff, DisabledForHcaOnASingleNodeRunIsNoInterNodeAdvice) {
  EXPECT_TRUE(
      log_rule(
          kId,
          log_fixture("nccl-debug/timezzx-1node-2xa100pcie-nvlink-roce-nccl2.27.7-subsys-all.log"))
          .findings.empty());
}

}  // namespace
}  // namespace trainready::test
