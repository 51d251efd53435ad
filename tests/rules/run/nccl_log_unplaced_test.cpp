#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-log-unplaced";

TEST(NcclLogUnplaced, FiresOnAnInputThatOnlyNamesNccl) {
  NcclRunFacts f;
  f.mentions.push_back({"NCCL hangs in the case GPUs are linked through PXB or PIX", {"t.log", 1}});
  f.mention_lines = 3;
  RuleOutcome o = log_rule(kId, f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  EXPECT_NE(o.findings[0].message.find("3 line(s) name NCCL"), std::string::npos);
  ASSERT_EQ(o.findings[0].evidence.size(), 1u);
  EXPECT_EQ(o.findings[0].evidence[0].where.str(), "t.log:1");
  EXPECT_NE(o.findings[0].fix.find("NCCL_DEBUG=INFO"), std::string::npos);
}

TEST(NcclLogUnplaced, QuietOnALogItReads) {
  RuleOutcome o = log_rule(kId, log_synthetic("azure-ndv5-gdrdma-2node.log"));
  EXPECT_TRUE(o.findings.empty());
  EXPECT_FALSE(o.skipped);
}

}  // namespace
}  // namespace trainready::test
