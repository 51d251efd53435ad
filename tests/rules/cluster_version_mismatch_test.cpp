#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(ClusterVersionMismatch, ReportsEachComponentThatDiffers) {
  NodeFacts a = healthy_nd_h100("a");
  NodeFacts b = healthy_nd_h100("b");
  b.gpus.value.driver_version = "550.90.07";
  b.ofed_version.value = "inbox (kernel rdma drivers, no MLNX_OFED)";
  RuleOutcome o = run_cluster_rule("cluster-version-mismatch", {a, b});
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_EQ(o.findings[0].message.rfind("NVIDIA driver versions differ", 0), 0u);
  EXPECT_EQ(o.findings[1].message.rfind("OFED versions differ", 0), 0u);
}

TEST(ClusterVersionMismatch, NcclMismatchAndQuietWhenEqual) {
  NodeFacts a = healthy_nd_h100("a");
  NodeFacts b = healthy_nd_h100("b");
  EXPECT_TRUE(run_cluster_rule("cluster-version-mismatch", {a, b}).findings.empty());
  b.nccl_version.value = "2.18.3";
  RuleOutcome o = run_cluster_rule("cluster-version-mismatch", {a, b});
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("NCCL"), std::string::npos);
}
