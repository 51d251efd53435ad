#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(NvlinkInactive, FiresOnAGpuWithFewerActiveLinks) {
  NodeFacts n = healthy_nd_h100();
  n.gpus.value.gpus[5].nvlink_active = 16;
  RuleOutcome o = run_rule("nvlink-inactive", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  ASSERT_EQ(o.findings[0].evidence.size(), 1u);
  EXPECT_NE(o.findings[0].evidence[0].text.find("GPU 5"), std::string::npos);
  EXPECT_NE(o.findings[0].evidence[0].text.find("16 of 18"), std::string::npos);
}

TEST(NvlinkInactive, RecoveryErrorsAreAWarning) {
  NodeFacts n = healthy_nd_h100();
  n.gpus.value.gpus[2].nvlink_recovery_errors = 4;
  RuleOutcome o = run_rule("nvlink-inactive", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
}

// NC80adis_H100_v5's H100 NVL cards use 12 of 18 links by design (AzNHC#162): equal counts on
// every GPU stay quiet.
TEST(NvlinkInactive, QuietWhenEveryGpuHasTheSameLinksAndSkipsWithoutState) {
  EXPECT_TRUE(run_rule("nvlink-inactive", healthy_nd_h100()).findings.empty());
  NodeFacts n = healthy_nd_h100();
  n.imds.value.vm_size = "Standard_NC80adis_H100_v5";
  n.gpus.value.gpus.resize(2);
  for (auto& g : n.gpus.value.gpus) g.nvlink_active = 12;
  EXPECT_TRUE(run_rule("nvlink-inactive", n).findings.empty());
  n = healthy_nd_h100();
  for (auto& g : n.gpus.value.gpus) g.nvlink_active.reset();
  EXPECT_TRUE(run_rule("nvlink-inactive", n).skipped);
}
