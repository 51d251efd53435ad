#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(IbPortCountLow, FiresWithSixOfEightAndDoesNotCountEthernet) {
  NodeFacts n = healthy_nd_h100();
  n.ib.value.devices.erase(n.ib.value.devices.begin(), n.ib.value.devices.begin() + 2);
  RuleOutcome o = run_rule("ib-port-count-low", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("6 of 8"), std::string::npos);
  EXPECT_NE(o.findings[0].evidence.back().text.find("mlx5_an0"), std::string::npos);
}

TEST(IbPortCountLow, LeavesZeroPortsToThePciRulesWhenPciIsKnown) {
  NodeFacts n = healthy_nd_h100();
  n.ib.value.devices.clear();
  EXPECT_TRUE(run_rule("ib-port-count-low", n).findings.empty());
  n.pci = Fact<PciFacts>::missing("not captured");
  EXPECT_EQ(run_rule("ib-port-count-low", n).findings.size(), 1u);
}

TEST(IbPortCountLow, QuietOnHealthyNode) {
  EXPECT_TRUE(run_rule("ib-port-count-low", healthy_nd_h100()).findings.empty());
}

// `ibstat mlx5_ib0` shows one CA: the other seven were not captured, not missing.
TEST(IbPortCountLow, AnExcerptIsNotCounted) {
  NodeFacts n = healthy_nd_h100();
  n.ib.value.devices.resize(1);
  EXPECT_EQ(run_rule("ib-port-count-low", n).findings.size(), 1u);
  n.ib.value.excerpt = "`ibstat mlx5_ib0` shows only mlx5_ib0";
  RuleOutcome o = run_rule("ib-port-count-low", n);
  EXPECT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("shows only part of the devices"), std::string::npos);
}
