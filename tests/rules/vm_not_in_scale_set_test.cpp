#include <gtest/gtest.h>

#include "catalog/ib_placement.h"
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

// The fix used to recommend Flexible with platformFaultDomainCount=1 and
// singlePlacementGroup=true, which deploy-ib-spg-off rejects (max spreading gives no single
// placement group): the advice now comes from the one shared statement.
TEST(VmNotInScaleSet, FixIsTheSharedPlacementAdviceNeverFlexibleMaxSpreading) {
  NodeFacts n = healthy_nd_h100();
  n.imds.value.vmss_name.clear();
  RuleOutcome o = run_rule("vm-not-in-scale-set", n);
  ASSERT_EQ(o.findings.size(), 1u);
  const std::string& fix = o.findings[0].fix;
  EXPECT_NE(fix.find(kIbOneGroupSettings), std::string::npos);
  EXPECT_NE(fix.find("Uniform orchestration with singlePlacementGroup=true"), std::string::npos);
  EXPECT_NE(fix.find("platformFaultDomainCount > 1"), std::string::npos);
  EXPECT_EQ(fix.find("platformFaultDomainCount=1) with"), std::string::npos);
  EXPECT_NE(fix.find("virtual-machine-scale-sets-orchestration-modes"), std::string::npos);
}
