#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-version-mismatch";

TEST(NcclVersionMismatch, FiresOnTwoVersions) {
  RuleOutcome o = log_rule(kId, log_synthetic("version-mismatch.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("2.18.3, 2.21.5"), std::string::npos);
  EXPECT_EQ(o.findings[0].subsumes, std::vector<std::string>{"cluster-version-mismatch"});
}

TEST(NcclVersionMismatch, QuietOnOneVersionAcrossSixteenNodes) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/bigscience-jz-16node-v100-netib-hfi1-nccl2.7.8.log"));
  EXPECT_FALSE(o.skipped);
  EXPECT_TRUE(o.findings.empty());
}

TEST(NcclVersionMismatch, FiresOnTwoRcclReleases) {
  RuleOutcome o = log_rule(kId, analyze_nccl_log_text(
                                    "a:1:1 [0] NCCL INFO RCCL version : 2.22.3-HEAD:271856d\n"
                                    "b:2:2 [0] NCCL INFO RCCL version : 2.20.5-HEAD:8a1b2c3\n",
                                    "two.log"));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("RCCL 2.20.5, RCCL 2.22.3"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("the same RCCL"), std::string::npos);
  EXPECT_EQ(o.findings[0].evidence.size(), 2u);
}

TEST(NcclVersionMismatch, QuietOnOneRcclRelease) {
  RuleOutcome o =
      log_rule(kId, log_fixture("nccl-debug/rocmvllm390-rccl2.22.3-missing-iommu-pt.log"));
  EXPECT_FALSE(o.skipped);
  EXPECT_TRUE(o.findings.empty());
}

TEST(NcclVersionMismatch, SkipsWhenNoVersionIsPrinted) {
  EXPECT_TRUE(
      log_rule(kId, log_fixture("nccl-debug/mlengineering-azure-2node-ib-error12-timeout.log"))
          .skipped);
}

}  // namespace
}  // namespace trainready::test
