#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(NcclTopoFileMissing, FiresWhenTheFileDoesNotExist) {
  NodeFacts n = healthy_nd_h100();
  n.nccl.value.topo_file_exists = Fact<bool>::present(false, {"/opt/microsoft/ndv5-topo.xml", 0});
  RuleOutcome o = run_rule("nccl-topo-file-missing", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].fix.find("/opt/microsoft/ndv5-topo.xml"), std::string::npos);
}

TEST(NcclTopoFileMissing, QuietWhenPresentOrUnsetAndSkipsWhenUnknown) {
  EXPECT_TRUE(run_rule("nccl-topo-file-missing", healthy_nd_h100()).findings.empty());
  NodeFacts n = healthy_nd_h100();
  n.nccl.value.topo_file.clear();
  EXPECT_TRUE(run_rule("nccl-topo-file-missing", n).findings.empty());
  n = healthy_nd_h100();
  n.nccl.value.topo_file_exists = Fact<bool>::missing("environment capture only");
  EXPECT_TRUE(run_rule("nccl-topo-file-missing", n).skipped);
}
