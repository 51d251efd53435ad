#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(VmNotInScaleSet, FiresForStandaloneInfinibandVm) {
  NodeFacts n = healthy_nd_h100();
  n.imds.value.vmss_name.clear();
  n.imds.value.placement_group_id.clear();
  RuleOutcome o = run_rule("vm-not-in-scale-set", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].evidence[0].text, "vmScaleSetName = \"\"");
}

TEST(VmNotInScaleSet, QuietInScaleSetOrWithoutInfiniband) {
  EXPECT_TRUE(run_rule("vm-not-in-scale-set", healthy_nd_h100()).findings.empty());
  NodeFacts n = healthy_nd_h100();
  n.imds.value.vmss_name.clear();
  n.imds.value.vm_size = "Standard_NC40ads_H100_v5";
  EXPECT_TRUE(run_rule("vm-not-in-scale-set", n).findings.empty());
  n.imds = Fact<ImdsInfo>::missing("off Azure");
  EXPECT_TRUE(run_rule("vm-not-in-scale-set", n).skipped);
}
