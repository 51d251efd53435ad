// fleet-link-bandwidth-low: one slow cell between two nodes that are fine with everyone else.
#include <gtest/gtest.h>

#include "support/pair_matrix_builder.h"
#include "support/pair_rule.h"

namespace trainready {
namespace {

TEST(FleetLinkBandwidthLow, FiresOnOneSlowPairAndBlamesNeitherNode) {
  auto f = test::pair_facts(6, 12.5);
  test::set_cell(f, 1, 4, 0.8);
  f.matrices[0].at(1, 4).retested = true;
  f.matrices[0].at(4, 1).retested = true;
  f.matrices[0].at(1, 4).first_gbytes_per_s = 0.7;
  const RuleOutcome o = test::run_pair_rule("fleet-link-bandwidth-low", f);
  ASSERT_EQ(o.findings.size(), 1u);
  const Finding& x = o.findings[0];
  EXPECT_NE(x.message.find("node-1 <-> node-4"), std::string::npos) << x.message;
  EXPECT_NE(x.message.find("0.80 GB/s"), std::string::npos) << x.message;
  EXPECT_TRUE(x.node.empty()) << "a link finding is about the path, not a node";
  bool retest = false;
  for (const Evidence& e : x.evidence) retest |= e.text.find("re-tested") != std::string::npos;
  EXPECT_TRUE(retest);
  EXPECT_TRUE(test::run_pair_rule("fleet-node-bandwidth-low", f).findings.empty());
}

TEST(FleetLinkBandwidthLow, QuietOnNoiseAndOnABadNode) {
  auto f = test::pair_facts(6, 12.5, 0.1);
  EXPECT_TRUE(test::run_pair_rule("fleet-link-bandwidth-low", f).findings.empty());
  test::set_row(f, 3, 1.0);
  EXPECT_TRUE(test::run_pair_rule("fleet-link-bandwidth-low", f).findings.empty())
      << "the node explains its cells";
}

TEST(FleetLinkBandwidthLow, TimedOutPairIsNamed) {
  auto f = test::pair_facts(4, 12.5);
  test::set_cell(f, 0, 3, 0, true);
  const RuleOutcome o = test::run_pair_rule("fleet-link-bandwidth-low", f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_NE(o.findings[0].message.find("timed out"), std::string::npos);
}

TEST(FleetLinkBandwidthLow, SkippedWithoutMeasurements) {
  PairBandwidthFacts f;
  EXPECT_TRUE(test::run_pair_rule("fleet-link-bandwidth-low", f).skipped);
}

}  // namespace
}  // namespace trainready
