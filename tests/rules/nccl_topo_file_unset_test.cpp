#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(NcclTopoFileUnset, FiresOnNdA100WithoutTopoFile) {
  NodeFacts n = healthy_nd_h100();
  n.imds.value.vm_size = "Standard_ND96asr_v4";
  n.nccl.value.conf.clear();
  n.nccl.value.topo_file.clear();
  RuleOutcome o = run_rule("nccl-topo-file-unset", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kInfo);
  EXPECT_NE(o.findings[0].fix.find("ndv4-topo.xml"), std::string::npos);
}

TEST(NcclTopoFileUnset, QuietWhenSetOrWhenTheSizeHasNoTopologyFile) {
  EXPECT_TRUE(run_rule("nccl-topo-file-unset", healthy_nd_h100()).findings.empty());
  NodeFacts n = healthy_nd_h100();
  n.imds.value.vm_size = "Standard_ND96isr_MI300X_v5";
  n.nccl.value.topo_file.clear();
  EXPECT_TRUE(run_rule("nccl-topo-file-unset", n).findings.empty());
}
