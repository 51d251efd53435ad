#include <gtest/gtest.h>

#include "support/rule_harness.h"

using namespace trainready;
using namespace trainready::test;

TEST(GpuMemoryErrors, RemapFailureIsAnErrorPendingIsAWarning) {
  NodeFacts n = healthy_nd_h100();
  n.gpus.value.gpus[2].remap_failure = true;
  n.gpus.value.gpus[3].remap_pending = true;
  n.gpus.value.gpus[4].ecc_uncorrected_volatile = 3;
  RuleOutcome o = run_rule("gpu-memory-errors", n);
  ASSERT_EQ(o.findings.size(), 3u);
  EXPECT_EQ(o.findings[0].severity, Severity::kError);
  EXPECT_EQ(o.findings[1].severity, Severity::kWarning);
  EXPECT_NE(o.findings[2].message.find("3 uncorrected"), std::string::npos);
}

TEST(GpuMemoryErrors, QuietOnCleanGpusAndUnknownCounters) {
  EXPECT_TRUE(run_rule("gpu-memory-errors", healthy_nd_h100()).findings.empty());
  NodeFacts n = healthy_nd_h100();
  for (auto& g : n.gpus.value.gpus) {
    g.remap_pending.reset();
    g.remap_failure.reset();
    g.ecc_uncorrected_volatile.reset();
  }
  EXPECT_TRUE(run_rule("gpu-memory-errors", n).findings.empty());
}
