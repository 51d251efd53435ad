#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(NvmeScratchNotMounted, FiresWhenDisksAreNotAssembled) {
  NodeFacts n = healthy_nd_h100();
  n.scratch.value.arrays.clear();
  for (auto& ns : n.scratch.value.namespaces) ns.md_array.clear();
  RuleOutcome o = run_rule("nvme-scratch-not-mounted", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("8 of 8"), std::string::npos);
  EXPECT_NE(o.findings[0].fix.find("--raid-devices=8"), std::string::npos);
}

TEST(NvmeScratchNotMounted, FiresWhenArrayAssembledButNotMounted) {
  NodeFacts n = healthy_nd_h100();
  n.scratch.value.arrays[0].mountpoint.clear();
  RuleOutcome o = run_rule("nvme-scratch-not-mounted", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].evidence.back().text.find("md0"), std::string::npos);
}

TEST(NvmeScratchNotMounted, QuietWhenMountedAndIgnoresRemoteNvme) {
  EXPECT_TRUE(run_rule("nvme-scratch-not-mounted", healthy_nd_h100()).findings.empty());
  NodeFacts n = healthy_nd_h100();
  NvmeNamespace remote;
  remote.name = "nvme8n1";
  remote.model = "MSFT NVMe Accelerator v1.0";
  remote.local = false;
  n.scratch.value.namespaces.push_back(remote);
  EXPECT_TRUE(run_rule("nvme-scratch-not-mounted", n).findings.empty());
}
