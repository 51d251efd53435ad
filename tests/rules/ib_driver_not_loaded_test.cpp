#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(IbDriverNotLoaded, FiresWhenHcasOnBusButNoRdmaDevices) {
  NodeFacts n = healthy_nd_h100();
  n.ib.value.devices.clear();
  n.modules.value.modules["mlx5_ib"].loaded = false;
  RuleOutcome o = run_rule("ib-driver-not-loaded", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("8 InfiniBand HCAs"), std::string::npos);
  bool saw_modules = false;
  for (const auto& e : o.findings[0].evidence)
    saw_modules |= e.text.find("mlx5_ib NOT loaded") != std::string::npos;
  EXPECT_TRUE(saw_modules);
}

TEST(IbDriverNotLoaded, FiresWhenUverbsMissing) {
  NodeFacts n = healthy_nd_h100();
  n.modules.value.modules["ib_uverbs"].loaded = false;
  RuleOutcome o = run_rule("ib-driver-not-loaded", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("ib_uverbs"), std::string::npos);
}

TEST(IbDriverNotLoaded, QuietWhenStackLoadedOrNoHcas) {
  EXPECT_TRUE(run_rule("ib-driver-not-loaded", healthy_nd_h100()).findings.empty());
  NodeFacts n = healthy_nd_h100();
  n.pci.value.devices.clear();
  n.ib.value.devices.clear();
  EXPECT_TRUE(run_rule("ib-driver-not-loaded", n).findings.empty());
}
