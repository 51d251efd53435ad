#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

// Azure/azhpc-images ndv5.sh writes NCCL_IB_PCI_RELAXED_ORDERING=1 to /etc/nccl.conf.
TEST(NcclIbRelaxedOrderingOff, ZeroIsAWarning) {
  NodeFacts n = healthy_nd_h100();
  n.nccl.value.env["NCCL_IB_PCI_RELAXED_ORDERING"] = "0";  // the environment wins over the conf
  RuleOutcome o = run_rule("nccl-ib-relaxed-ordering-off", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kWarning);
  EXPECT_NE(o.findings[0].evidence.back().text.find("ndv5.sh"), std::string::npos);
}

TEST(NcclIbRelaxedOrderingOff, UnsetIsInfo) {
  NodeFacts n = healthy_nd_h100();
  n.nccl.value.conf.erase("NCCL_IB_PCI_RELAXED_ORDERING");
  RuleOutcome o = run_rule("nccl-ib-relaxed-ordering-off", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  EXPECT_NE(o.findings[0].message.find("not set"), std::string::npos);
}

TEST(NcclIbRelaxedOrderingOff, QuietWhenSetOrOnSizesWhoseImageDoesNotSetIt) {
  EXPECT_TRUE(run_rule("nccl-ib-relaxed-ordering-off", healthy_nd_h100()).findings.empty());
  NodeFacts n = healthy_nd_h100();
  n.nccl.value.conf.erase("NCCL_IB_PCI_RELAXED_ORDERING");
  n.imds.value.vm_size = "Standard_NC40ads_H100_v5";
  EXPECT_TRUE(run_rule("nccl-ib-relaxed-ordering-off", n).findings.empty());
  n.imds = Fact<ImdsInfo>::missing("off Azure");
  EXPECT_TRUE(run_rule("nccl-ib-relaxed-ordering-off", n).skipped);
}
