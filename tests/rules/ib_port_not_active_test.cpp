#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(IbPortNotActive, GroupsPollingPortsIntoOneFindingWithPlacementFix) {
  NodeFacts n = healthy_nd_h100();
  for (int i = 0; i < 3; ++i) n.ib.value.devices[i].ports[0] = ib_port(1, "DOWN", "Polling", 400);
  RuleOutcome o = run_rule("ib-port-not-active", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("3 of 8"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("singlePlacementGroup=true"), std::string::npos);
}

TEST(IbPortNotActive, InitMeansNoSubnetManagerAndDisabledIsSeparate) {
  NodeFacts n = healthy_nd_h100();
  n.ib.value.devices[0].ports[0] = ib_port(1, "INIT", "LinkUp", 40);
  n.ib.value.devices[1].ports[0] = ib_port(1, "DOWN", "Disabled", 40);
  RuleOutcome o = run_rule("ib-port-not-active", n);
  ASSERT_EQ(o.findings.size(), 2u);
  std::string all = o.findings[0].cause + o.findings[1].cause;
  EXPECT_NE(all.find("subnet manager"), std::string::npos);
  EXPECT_NE(all.find("administratively Disabled"), std::string::npos);
}

TEST(IbPortNotActive, IgnoresEthernetPortsAndStaysQuietWhenActive) {
  NodeFacts n = healthy_nd_h100();
  n.ib.value.devices.back().ports[0] = ib_port(1, "DOWN", "Disabled", 40, "Ethernet");
  EXPECT_TRUE(run_rule("ib-port-not-active", n).findings.empty());
}

TEST(IbPortNotActive, UnreadableStateIsANoteNotAPass) {
  NodeFacts n = healthy_nd_h100();
  n.ib.value.devices[0].ports[0].state =
      Fact<std::string>::unreadable("binary content", {"state", 0});
  RuleOutcome o = run_rule("ib-port-not-active", n);
  EXPECT_TRUE(o.findings.empty());
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("mlx5_ib0/1"), std::string::npos);
  n.ib = Fact<IbFacts>::missing("no /sys/class");
  EXPECT_TRUE(run_rule("ib-port-not-active", n).skipped);
}
