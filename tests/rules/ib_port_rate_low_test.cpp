#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(IbPortRateLow, FiresOnHdrRateOnAnNdrSize) {
  NodeFacts n = healthy_nd_h100();
  n.ib.value.devices[5].ports[0] = ib_port(1, "ACTIVE", "LinkUp", 200);
  RuleOutcome o = run_rule("ib-port-rate-low", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("mlx5_ib5/1 runs at 200 Gb/s"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("expects 400 Gb/s"), std::string::npos);
}

TEST(IbPortRateLow, QuietAtLineRateAndForDownPorts) {
  EXPECT_TRUE(run_rule("ib-port-rate-low", healthy_nd_h100()).findings.empty());
  NodeFacts n = healthy_nd_h100();
  n.ib.value.devices[0].ports[0] = ib_port(1, "DOWN", "Polling", 10);
  EXPECT_TRUE(run_rule("ib-port-rate-low", n).findings.empty());
  n.imds.value.vm_size = "Standard_ND96asr_v4";
  for (auto& d : n.ib.value.devices) d.ports[0].rate_gbps.value = 200;
  EXPECT_TRUE(run_rule("ib-port-rate-low", n).findings.empty());
}

// Without a VM size (bare metal, a snapshot without IMDS) the rule used to skip: one port at
// 200 Gb/s among 400s is a finding against the node's own ports.
TEST(IbPortRateLow, UnknownSizeComparesThePortsOfTheNode) {
  NodeFacts n = healthy_nd_h100();
  n.imds = Fact<ImdsInfo>::missing("no instance metadata");
  n.ib.value.devices[3].ports[0] = ib_port(1, "ACTIVE", "LinkUp", 200);
  RuleOutcome o = run_rule("ib-port-rate-low", n);
  ASSERT_FALSE(o.skipped) << o.skip_reason;
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("mlx5_ib3/1 runs at 200 Gb/s"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("other ports of this node run at 400 Gb/s"),
            std::string::npos);
}

TEST(IbPortRateLow, MixedWidthsAreAFindingEvenAtEqualRates) {
  NodeFacts n = healthy_nd_h100();
  n.imds = Fact<ImdsInfo>::missing("no instance metadata");
  for (auto& d : n.ib.value.devices) d.ports[0].rate_text = "400 Gb/sec (4X NDR)";
  // 2X at a rate that matches (a lane pair down on a faster generation) still differs.
  n.ib.value.devices[6].ports[0].rate_text = "400 Gb/sec (2X XDR)";
  n.ib.value.devices[6].ports[0].link_width = 2;
  for (std::size_t i = 0; i < n.ib.value.devices.size(); ++i)
    if (i != 6) n.ib.value.devices[i].ports[0].link_width = 4;
  RuleOutcome o = run_rule("ib-port-rate-low", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("mlx5_ib6/1 trained at 2X"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("are 4X"), std::string::npos);
}

TEST(IbPortRateLow, UnknownSizeQuietWhenPortsAgreeAndSkipsWithOnePort) {
  NodeFacts n = healthy_nd_h100();
  n.imds = Fact<ImdsInfo>::missing("no instance metadata");
  RuleOutcome o = run_rule("ib-port-rate-low", n);
  EXPECT_FALSE(o.skipped);
  EXPECT_TRUE(o.findings.empty());
  n.ib.value.devices.resize(1);
  EXPECT_TRUE(run_rule("ib-port-rate-low", n).skipped);
}

// A port whose state is missing cannot have its rate judged: that used to pass silently (the
// doctor said READY with the states of every port gone); now it is a note, or a skip when no port
// could be judged, so the verdict is INCOMPLETE.
TEST(IbPortRateLow, MissingStateIsReportedNotPassed) {
  NodeFacts n = healthy_nd_h100();
  n.ib.value.devices[2].ports[0].state = Fact<std::string>::missing("no such file");
  RuleOutcome o = run_rule("ib-port-rate-low", n);
  ASSERT_FALSE(o.skipped);
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("mlx5_ib2/1: rate not judged"), std::string::npos) << o.notes[0];
  for (auto& d : n.ib.value.devices) d.ports[0].state = Fact<std::string>::missing("gone");
  RuleOutcome all = run_rule("ib-port-rate-low", n);
  EXPECT_TRUE(all.skipped);
  EXPECT_NE(all.skip_reason.find("no InfiniBand port rate could be judged"), std::string::npos);
}
