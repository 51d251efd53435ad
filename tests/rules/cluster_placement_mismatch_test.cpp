#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(ClusterPlacementMismatch, FiresOnDifferentScaleSetsAndPlacementGroups) {
  NodeFacts a = healthy_nd_h100("a");
  NodeFacts b = healthy_nd_h100("b");
  b.imds.value.vmss_name = "other";
  b.imds.value.placement_group_id = "11111111-2222-3333-4444-555555555555";
  RuleOutcome o = run_cluster_rule("cluster-placement-mismatch", {a, b});
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("scale sets"), std::string::npos);
  EXPECT_NE(o.findings[0].message.find("placement groups"), std::string::npos);
  EXPECT_EQ(o.findings[0].evidence.size(), 4u);
}

TEST(ClusterPlacementMismatch, QuietWhenAllInOneSet) {
  EXPECT_TRUE(
      run_cluster_rule("cluster-placement-mismatch", {healthy_nd_h100("a"), healthy_nd_h100("b")})
          .findings.empty());
}
