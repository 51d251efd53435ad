#include <gtest/gtest.h>

#include "rules/run/run_rule_support.h"

namespace trainready::test {
namespace {

const char* kId = "nccl-tests-busbw-low";

RunOptions sku(const char* s, int nodes) {
  RunOptions o;
  o.sku = s;
  o.nodes = nodes;
  return o;
}

TEST(NcclTestsBusbwLow, FiresEthernetClassWhenSocketsCarryTheTraffic) {
  NcclTestsFacts t =
      tests_fixture("nccl-tests/nccl-ebpf-2rank-socket-forced-tag-output-all_reduce_perf.txt");
  RuleOutcome o = run_run_rule(kId, nullptr, &t, sku("Standard_ND96isr_H100_v5", 2));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_NE(o.findings[0].cause.find("Ethernet-class"), std::string::npos);
  EXPECT_EQ(o.findings[0].subsumes, std::vector<std::string>{"nccl-inter-node-not-ib"});
}

TEST(NcclTestsBusbwLow, AboutHalfPointsAtGdrdma) {
  NcclTestsFacts t = tests_fixture("nccl-tests/deepops-slurm-4x-dgx-a100-ib-all_reduce_perf.txt");
  for (auto& r : t.rows) {
    if (r.oop_busbw) *r.oop_busbw /= 2;
    if (r.ip_busbw) *r.ip_busbw /= 2;
  }
  RuleOutcome o = run_run_rule(kId, nullptr, &t, sku("Standard_ND96asr_v4", 4));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("GPUDirect RDMA"), std::string::npos);
}

TEST(NcclTestsBusbwLow, QuietOnHealthyMultiNodeRuns) {
  struct Case {
    const char* file;
    const char* sku;
    int nodes;
  };
  for (const Case& c :
       {Case{"nccl-tests/azureml-2node-nd96amsr_a100_v4-all_reduce_perf-excerpt.txt",
             "Standard_ND96amsr_A100_v4", 2},
        Case{"nccl-tests/deepops-slurm-4x-dgx-a100-ib-all_reduce_perf.txt", "Standard_ND96asr_v4",
             4},
        Case{"nccl-tests/deepops-k8s-2x-dgx-a100-8xhdr-all_reduce_perf.txt", "Standard_ND96asr_v4",
             2},
        Case{"nccl-tests/coreweave-8node-64xh100-sharp-all_reduce_perf-excerpt.txt",
             "Standard_ND96isr_H100_v5", 8}}) {
    NcclTestsFacts t = tests_fixture(c.file);
    RuleOutcome o = run_run_rule(kId, nullptr, &t, sku(c.sku, c.nodes));
    EXPECT_FALSE(o.skipped) << c.file;
    EXPECT_TRUE(o.findings.empty()) << c.file;
  }
}

TEST(NcclTestsBusbwLow, QuietOnOneVmMatchedFromItsGpus) {
  NcclTestsFacts t = tests_fixture("nccl-tests/superbench-1node-8xa100-40g-all_reduce_perf.txt");
  RuleOutcome o = run_run_rule(kId, nullptr, &t);
  EXPECT_FALSE(o.skipped);
  EXPECT_TRUE(o.findings.empty());
}

TEST(NcclTestsBusbwLow, SkipsWithoutSizeOrNodes) {
  NcclTestsFacts t =
      tests_fixture("nccl-tests/aws-2x-p4de-efa-srun-label-prefix-all_reduce_perf-excerpt.txt");
  RuleOutcome o = run_run_rule(kId, nullptr, &t);
  ASSERT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("--sku"), std::string::npos);
  RunOptions only_sku;
  only_sku.sku = "Standard_ND96asr_v4";
  o = run_run_rule(kId, nullptr, &t, only_sku);
  ASSERT_TRUE(o.skipped);
  EXPECT_NE(o.skip_reason.find("--nodes"), std::string::npos);
}

}  // namespace
}  // namespace trainready::test
