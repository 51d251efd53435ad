#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

namespace {
NodeFacts with_links(const std::string& speed, int width, const std::string& max_speed,
                     int max_width) {
  NodeFacts n = healthy_nd_h100();
  for (auto& d : n.pci.value.devices) {
    d.link_speed = "32.0 GT/s PCIe";
    d.max_link_speed = "32.0 GT/s PCIe";
    d.link_width = d.max_link_width = 16;
  }
  PciDevice& gpu = n.pci.value.devices[1];
  gpu.link_speed = speed;
  gpu.link_width = width;
  gpu.max_link_speed = max_speed;
  gpu.max_link_width = max_width;
  return n;
}
}  // namespace

TEST(PcieLinkDegraded, FiresOnFewerLanesAndOnLowerGeneration) {
  RuleOutcome narrow =
      run_rule("pcie-link-degraded", with_links("32.0 GT/s PCIe", 8, "32.0 GT/s PCIe", 16));
  ASSERT_EQ(narrow.findings.size(), 1u);
  EXPECT_NE(narrow.findings[0].message.find("x8"), std::string::npos);
  EXPECT_NE(narrow.findings[0].cause.find("fewer lanes"), std::string::npos);
  RuleOutcome slow = run_rule("pcie-link-degraded", with_links("8GT/s", 16, "32GT/s", 16));
  ASSERT_EQ(slow.findings.size(), 1u);
  EXPECT_NE(slow.findings[0].cause.find("lower generation"), std::string::npos);
}

TEST(PcieLinkDegraded, QuietAtFullLinkAndForUnknownVirtualFunctionLinks) {
  EXPECT_TRUE(run_rule("pcie-link-degraded", with_links("32.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16))
                  .findings.empty());
  EXPECT_TRUE(
      run_rule("pcie-link-degraded", with_links("Unknown", 0, "Unknown", 0)).findings.empty());
  EXPECT_TRUE(
      run_rule("pcie-link-degraded", with_links("unknown", 0, "16GT/s", 16)).findings.empty());
}

// An lspci excerpt without its device line: the link is judged, as a device the capture does not
// name; a LnkSta lspci marked "(downgraded)" without LnkCap is judged on that mark.
TEST(PcieLinkDegraded, LinksOfAnExcerptWithoutTheirDeviceLine) {
  NodeFacts n = with_links("32.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16);
  PciDevice cut;
  cut.link_speed = "2.5GT/s";
  cut.link_width = 16;
  cut.max_link_speed = "16GT/s";
  cut.max_link_width = 16;
  n.pci.value.devices.push_back(cut);
  RuleOutcome o = run_rule("pcie-link-degraded", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("its lspci line is not in the capture"), std::string::npos);
  n.pci.value.devices.back().max_link_speed.clear();
  n.pci.value.devices.back().max_link_width = 0;
  EXPECT_TRUE(run_rule("pcie-link-degraded", n).findings.empty());  // nothing to compare
  n.pci.value.devices.back().link_marked_downgraded = true;
  o = run_rule("pcie-link-degraded", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("LnkCap not captured"), std::string::npos);
}
