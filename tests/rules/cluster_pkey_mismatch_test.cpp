#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(ClusterPkeyMismatch, FiresWhenHealthyLookingNodesHaveDifferentPkeys) {
  NodeFacts a = healthy_nd_h100("a");
  NodeFacts b = healthy_nd_h100("b");
  for (auto& d : b.ib.value.devices) {
    if (d.name != "mlx5_an0") d.ports[0].pkey0.value = "0x8002";
  }
  RuleOutcome o = run_cluster_rule("cluster-pkey-mismatch", {a, b});
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("0x8001 on a; 0x8002 on b"), std::string::npos);
}

TEST(ClusterPkeyMismatch, QuietWhenEqualAndIgnoresEthernetPorts) {
  NodeFacts a = healthy_nd_h100("a");
  NodeFacts b = healthy_nd_h100("b");
  b.ib.value.devices.back().ports[0].pkey0.value = "0x1234";  // mlx5_an0, Ethernet
  EXPECT_TRUE(run_cluster_rule("cluster-pkey-mismatch", {a, b}).findings.empty());
}

TEST(ClusterPkeyMismatch, SkipsWhenNoNodeHasPkeys) {
  NodeFacts a = empty_node("a");
  a.ib = Fact<IbFacts>::missing("no sysfs");
  RuleOutcome o = run_cluster_rule("cluster-pkey-mismatch", {a, a});
  EXPECT_TRUE(o.skipped);
}
