#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(VmSizeNoInfiniband, FiresOnNc40adsH100AndNamesTheNdSize) {
  NodeFacts n = healthy_nd_h100();
  n.imds.value.vm_size = "Standard_NC40ads_H100_v5";
  RuleOutcome o = run_rule("vm-size-no-infiniband", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].fix.find("Standard_ND96isr_H100_v5"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("40 Gb/s"), std::string::npos);
}

TEST(VmSizeNoInfiniband, FiresOnUncataloguedNSeriesWithoutR) {
  NodeFacts n = healthy_nd_h100();
  n.imds.value.vm_size = "Standard_NV36ads_A10_v5";
  RuleOutcome o = run_rule("vm-size-no-infiniband", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("without 'r'"), std::string::npos);
}

TEST(VmSizeNoInfiniband, QuietOnNdAndOnUncataloguedRdmaSize) {
  EXPECT_TRUE(run_rule("vm-size-no-infiniband", healthy_nd_h100()).findings.empty());
  NodeFacts n = healthy_nd_h100();
  n.imds.value.vm_size = "Standard_NC24rs_v3";
  RuleOutcome o = run_rule("vm-size-no-infiniband", n);
  EXPECT_FALSE(o.skipped);
  EXPECT_TRUE(o.findings.empty());
}

TEST(VmSizeNoInfiniband, SkipsWhenSizeUnknown) {
  NodeFacts n = healthy_nd_h100();
  n.imds = Fact<ImdsInfo>::missing("not an Azure VM");
  RuleOutcome o = run_rule("vm-size-no-infiniband", n);
  EXPECT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("--sku"), std::string::npos);
  RunOptions declared;  // doctor --sku
  declared.sku = "Standard_NC80adis_H100_v5";
  EXPECT_EQ(run_rule("vm-size-no-infiniband", n, declared).findings.size(), 1u);
}
