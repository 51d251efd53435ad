#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(NcclIbDisabled, FiresOnIbDisableFromEnvironment) {
  NodeFacts n = healthy_nd_h100();
  n.nccl.value.env["NCCL_IB_DISABLE"] = "1";
  RuleOutcome o = run_rule("nccl-ib-disabled", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].evidence[0].text, "NCCL_IB_DISABLE=1");
  EXPECT_EQ(o.findings[0].evidence[0].where.source, "environ");
}

TEST(NcclIbDisabled, FiresOnNetSocketFromNcclConf) {
  NodeFacts n = healthy_nd_h100();
  n.nccl.value.conf["NCCL_NET"] = "socket";
  RuleOutcome o = run_rule("nccl-ib-disabled", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].fix.find("/etc/nccl.conf"), std::string::npos);
}

TEST(NcclIbDisabled, EnvironmentOverridesConfAndZeroIsQuiet) {
  NodeFacts n = healthy_nd_h100();
  n.nccl.value.conf["NCCL_IB_DISABLE"] = "1";
  n.nccl.value.env["NCCL_IB_DISABLE"] = "0";
  EXPECT_TRUE(run_rule("nccl-ib-disabled", n).findings.empty());
  EXPECT_TRUE(run_rule("nccl-ib-disabled", healthy_nd_h100()).findings.empty());
}

TEST(NcclIbDisabled, HarmlessOnNodesWithoutInfiniband) {
  NodeFacts n = healthy_nd_h100();
  n.imds.value.vm_size = "Standard_NC40ads_H100_v5";
  n.ib.value.devices.clear();
  n.nccl.value.env["NCCL_IB_DISABLE"] = "1";
  EXPECT_TRUE(run_rule("nccl-ib-disabled", n).findings.empty());
}
