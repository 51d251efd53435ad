#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(IbPortNotActive, AllPortsPollingChecksPlacementFirstThenReports) {
  NodeFacts n = healthy_nd_h100();
  for (int i = 0; i < 8; ++i) n.ib.value.devices[i].ports[0] = ib_port(1, "DOWN", "Polling", 400);
  RuleOutcome o = run_rule("ib-port-not-active", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("8 of 8"), std::string::npos);
  const std::string& fix = o.findings[0].fix;
  const auto placement = fix.find("First check placement");
  const auto report = fix.find("report the node");
  ASSERT_NE(placement, std::string::npos);
  ASSERT_NE(report, std::string::npos);
  EXPECT_LT(placement, report);
  EXPECT_NE(o.findings[0].cause.find("azhpc-diagnostics#76"), std::string::npos);
}

// Placement applies to the whole VM: Polling ports beside ACTIVE ones are a link to report, not
// a reason to redeploy the cluster (the old fix said redeploy into one scale set).
TEST(IbPortNotActive, PollingBesideActivePortsIsALinkFaultNotPlacement) {
  NodeFacts n = healthy_nd_h100();
  for (int i = 0; i < 3; ++i) n.ib.value.devices[i].ports[0] = ib_port(1, "DOWN", "Polling", 400);
  RuleOutcome o = run_rule("ib-port-not-active", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("3 of 8"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("placement is not the cause"), std::string::npos);
  EXPECT_EQ(o.findings[0].fix.find("singlePlacementGroup"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("report it"), std::string::npos);
  bool counted = false;
  for (const auto& e : o.findings[0].evidence)
    counted = counted || e.text.find("5 of 8 InfiniBand ports of this VM are ACTIVE") == 0;
  EXPECT_TRUE(counted);
}

// azhpc-diagnostics#59: an ND A100 v4 port Initializing with a subnet manager LID set. INIT is
// "not yet activated; re-check, then report", not "no subnet manager".
TEST(IbPortNotActive, InitIsNotYetActivatedAndDisabledIsSeparate) {
  NodeFacts n = healthy_nd_h100();
  n.ib.value.devices[0].ports[0] = ib_port(1, "INIT", "LinkUp", 40);
  n.ib.value.devices[1].ports[0] = ib_port(1, "DOWN", "Disabled", 40);
  RuleOutcome o = run_rule("ib-port-not-active", n);
  ASSERT_EQ(o.findings.size(), 2u);
  const Finding& init =
      o.findings[0].message.find("INIT") != std::string::npos ? o.findings[0] : o.findings[1];
  EXPECT_NE(init.cause.find("not yet activated"), std::string::npos);
  EXPECT_NE(init.cause.find("not proof of a missing subnet manager"), std::string::npos);
  EXPECT_NE(init.fix.find("Re-check"), std::string::npos);
  EXPECT_EQ(init.fix.find("singlePlacementGroup"), std::string::npos);
  std::string all = o.findings[0].cause + o.findings[1].cause;
  EXPECT_NE(all.find("administratively Disabled"), std::string::npos);
}

TEST(IbPortNotActive, StaysQuietWhenActive) {
  NodeFacts n = healthy_nd_h100();
  EXPECT_TRUE(run_rule("ib-port-not-active", n).findings.empty());
  n.ib.value.devices.back().ports[0] = ib_port(1, "ACTIVE", "LinkUp", 40, "Ethernet");
  EXPECT_TRUE(run_rule("ib-port-not-active", n).findings.empty());
}

// A RoCE port (link layer Ethernet) that is down is RoCE's problem, with RoCE's fix (its netdev,
// cable, switch port; a bond's slaves), at warning: never an InfiniBand port that is down, never
// placement or a subnet manager (issue 31; DeepEP#60's mlx5_12 PORT_DOWN, Ethernet).
TEST(IbPortNotActive, RoceAndRoceBondPortsAreJudgedAsRoce) {
  NodeFacts n = healthy_nd_h100();
  n.ib.value.devices.back().ports[0] = ib_port(1, "DOWN", "Disabled", 40, "Ethernet");
  IbDevice bond;
  bond.name = "mlx5_bond_0";
  bond.ports.push_back(ib_port(1, "DOWN", "Polling", 200, "Ethernet"));
  n.ib.value.devices.push_back(bond);
  RuleOutcome o = run_rule("ib-port-not-active", n);
  ASSERT_EQ(o.findings.size(), 2u);
  for (const Finding& f : o.findings) {
    EXPECT_EQ(f.severity, Severity::kWarning);
    EXPECT_NE(f.message.find("link layer Ethernet"), std::string::npos) << f.message;
    EXPECT_EQ(f.message.find("InfiniBand port"), std::string::npos) << f.message;
    EXPECT_NE(f.fix.find("ibdev2netdev"), std::string::npos);
    EXPECT_EQ(f.fix.find("placement"), std::string::npos);
    EXPECT_EQ(f.cause.find("azhpc-diagnostics#76"), std::string::npos);
  }
  const Finding& b =
      o.findings[0].message.find("bond") != std::string::npos ? o.findings[0] : o.findings[1];
  EXPECT_NE(b.message.find("RoCE bond port mlx5_bond_0/1"), std::string::npos) << b.message;
}

// `ibv_devinfo` without -v has no phys_state: a DOWN port is still judged (its physical state
// said to be not captured); a port whose link layer the paste cut off is a note, not a verdict.
TEST(IbPortNotActive, PhysicalStateOrLinkLayerNotCaptured) {
  NodeFacts n = healthy_nd_h100();
  n.ib.value.devices[0].ports[0].state = Fact<std::string>::present("DOWN", {"p", 12});
  n.ib.value.devices[0].ports[0].phys_state = Fact<std::string>::missing("not in the capture");
  n.ib.value.devices[1].ports[0].phys_state = Fact<std::string>::missing("not in the capture");
  n.ib.value.devices[2].ports[0] = ib_port(1, "DOWN", "Disabled", 10);
  n.ib.value.devices[2].ports[0].link_layer = Fact<std::string>::missing("not in the capture");
  RuleOutcome o = run_rule("ib-port-not-active", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("mlx5_ib0/1 is DOWN (physical state not captured)"),
            std::string::npos)
      << o.findings[0].message;
  EXPECT_NE(o.findings[0].cause.find("does not show its physical state"), std::string::npos);
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("not judged as InfiniBand or RoCE"), std::string::npos) << o.notes[0];
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
