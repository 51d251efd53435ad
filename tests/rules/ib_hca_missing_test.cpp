#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(IbHcaMissing, FiresWhenNoInfinibandControllerOnTheBus) {
  NodeFacts n = healthy_nd_h100();
  auto& devs = n.pci.value.devices;
  devs.erase(std::remove_if(devs.begin(), devs.end(),
                            [](const PciDevice& d) { return d.kind == PciKind::kMellanox; }),
             devs.end());
  RuleOutcome o = run_rule("ib-hca-missing", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("0 of 8"), std::string::npos);
}

TEST(IbHcaMissing, CountsOnlyInfinibandClassNotTheEthernetVf) {
  NodeFacts n = healthy_nd_h100();
  for (auto& d : n.pci.value.devices) {
    if (d.kind == PciKind::kMellanox && d.address.rfind("0108", 0) == 0) d.class_code = 0x020000;
  }
  RuleOutcome o = run_rule("ib-hca-missing", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("7 of 8"), std::string::npos);
}

TEST(IbHcaMissing, QuietOnHealthyNodeAndOnSizesWithoutInfiniband) {
  EXPECT_TRUE(run_rule("ib-hca-missing", healthy_nd_h100()).findings.empty());
  NodeFacts n = healthy_nd_h100();
  n.imds.value.vm_size = "Standard_NC40ads_H100_v5";
  n.pci.value.devices.clear();
  EXPECT_TRUE(run_rule("ib-hca-missing", n).findings.empty());
}

TEST(IbHcaMissing, SkipsWithoutPciFacts) {
  NodeFacts n = healthy_nd_h100();
  n.pci = Fact<PciFacts>::unreadable("Permission denied", {"/sys/bus/pci/devices", 0});
  EXPECT_TRUE(run_rule("ib-hca-missing", n).skipped);
}
