#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(GpuCountLow, FiresWhenNvmlSeesSevenOfEight) {
  NodeFacts n = healthy_nd_h100();
  n.gpus.value.gpus.pop_back();
  RuleOutcome o = run_rule("gpu-count-low", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("7 of 8"), std::string::npos);
}

TEST(GpuCountLow, NoDriverWithGpusOnTheBusBlamesTheDriver) {
  NodeFacts n = healthy_nd_h100();
  n.gpus.value = GpuFacts{};
  n.gpus.value.no_driver_reason = "no NVIDIA driver: libnvidia-ml.so.1 could not be loaded";
  RuleOutcome o = run_rule("gpu-count-low", n);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].cause.find("driver"), std::string::npos);
  EXPECT_EQ(o.findings[0].evidence[0].text,
            "no NVIDIA driver: libnvidia-ml.so.1 could not be loaded");
}

TEST(GpuCountLow, UsesThePciBusForAmdSizes) {
  NodeFacts n = healthy_nd_h100();
  n.imds.value.vm_size = "Standard_ND96isr_MI300X_v5";
  RuleOutcome o = run_rule("gpu-count-low", n);
  ASSERT_EQ(o.findings.size(), 1u);  // the NVIDIA GPUs of the builder are not AMD GPUs
  EXPECT_NE(o.findings[0].message.find("0 of 8"), std::string::npos);
}

TEST(GpuCountLow, QuietWhenAllGpusPresent) {
  EXPECT_TRUE(run_rule("gpu-count-low", healthy_nd_h100()).findings.empty());
}
