// fleet-bandwidth-below-expected: the typical pair short of the VM size's per-rail figure.
#include <gtest/gtest.h>

#include "queries/pair_expectation.h"
#include "support/pair_matrix_builder.h"
#include "support/pair_rule.h"

namespace trainready {
namespace {

PairBandwidthFacts nd_h100(double measured) {
  auto f = test::pair_facts(4, measured);
  const SkuEntry* sku = Catalog::builtin().find("Standard_ND96isr_H100_v5");
  EXPECT_NE(sku, nullptr);
  const PairExpectation e = pair_expectation(sku, true, 8, RunOptions{});
  EXPECT_TRUE(e.gbytes_per_s.has_value()) << e.why_unknown;
  f.expected_gbytes_per_s = e.gbytes_per_s;
  f.expected_formula = e.formula;
  f.rails = 8;
  return f;
}

TEST(FleetBandwidthBelowExpected, FiresWhenTheFleetIsShort) {
  const RuleOutcome o = test::run_pair_rule("fleet-bandwidth-below-expected", nd_h100(20));
  ASSERT_EQ(o.findings.size(), 1u);
  // 400 Gb/s / 8 x 95 % = 47.5 GB/s per rail.
  EXPECT_NE(o.findings[0].message.find("47.50 GB/s expected"), std::string::npos)
      << o.findings[0].message;
}

// Domain review 3, finding 17: a missing nvidia-peermem alone is no fault when DMA-BUF carries
// GPUDirect RDMA (gpudirect-rdma-disabled); the cause names the path, not the module.
TEST(FleetBandwidthBelowExpected, CauseNamesTheGpudirectPathNotPeermemAlone) {
  const RuleOutcome o = test::run_pair_rule("fleet-bandwidth-below-expected", nd_h100(20));
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].cause.find("nvidia-peermem missing"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("neither nvidia-peermem nor DMA-BUF"), std::string::npos);
  EXPECT_NE(o.findings[0].cause.find("gpudirect-rdma-disabled"), std::string::npos);
}

TEST(FleetBandwidthBelowExpected, QuietAtTheLineRate) {
  EXPECT_TRUE(test::run_pair_rule("fleet-bandwidth-below-expected", nd_h100(45)).findings.empty());
}

TEST(FleetBandwidthBelowExpected, NotApplicableOnHostMemoryMpi) {
  auto f = test::pair_facts(4, 1);
  f.expected_why_unknown =
      pair_expectation(Catalog::builtin().find("Standard_ND96isr_H100_v5"), false, 1, {})
          .why_unknown;
  const RuleOutcome o = test::run_pair_rule("fleet-bandwidth-below-expected", f);
  EXPECT_NE(o.not_applicable.find("MPI on host memory"), std::string::npos) << o.not_applicable;
}

}  // namespace
}  // namespace trainready
