#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(ClusterVmSizeMixed, FiresOnTwoSizes) {
  NodeFacts a = healthy_nd_h100("a");
  NodeFacts b = healthy_nd_h100("b");
  b.imds.value.vm_size = "Standard_ND96isr_H200_v5";
  RuleOutcome o = run_cluster_rule("cluster-vm-size-mixed", {a, b});
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("Standard_ND96isr_H200_v5 on b"), std::string::npos);
}

TEST(ClusterVmSizeMixed, QuietOnOneSizeAndNotesUnknownNodes) {
  NodeFacts c = healthy_nd_h100("c");
  c.imds = Fact<ImdsInfo>::missing("off Azure");
  RuleOutcome o =
      run_cluster_rule("cluster-vm-size-mixed", {healthy_nd_h100("a"), healthy_nd_h100("b"), c});
  EXPECT_TRUE(o.findings.empty());
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_EQ(o.notes[0].rfind("c: ", 0), 0u);
}
