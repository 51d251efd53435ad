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
