// fleet-node-bandwidth-low: a node slow with all its peers, or absent from the phase.
#include <gtest/gtest.h>

#include "support/pair_matrix_builder.h"
#include "support/pair_rule.h"

namespace trainready {
namespace {

TEST(FleetNodeBandwidthLow, FiresOnALowRow) {
  auto f = test::pair_facts(8, 12.5);
  test::set_row(f, 5, 2.0);
  const RuleOutcome o = test::run_pair_rule("fleet-node-bandwidth-low", f);
  ASSERT_EQ(o.findings.size(), 1u);
  EXPECT_EQ(o.findings[0].node, "node-5");
  EXPECT_NE(o.findings[0].message.find("median 2.00 GB/s with its 7 peers"), std::string::npos)
      << o.findings[0].message;
  EXPECT_TRUE(test::run_pair_rule("fleet-link-bandwidth-low", f).findings.empty());
}

TEST(FleetNodeBandwidthLow, QuietOnNoiseAndOnOneSlowLink) {
  auto f = test::pair_facts(8, 12.5, 0.1);
  EXPECT_TRUE(test::run_pair_rule("fleet-node-bandwidth-low", f).findings.empty());
  test::set_cell(f, 2, 6, 0.5);
  EXPECT_TRUE(test::run_pair_rule("fleet-node-bandwidth-low", f).findings.empty());
}

TEST(FleetNodeBandwidthLow, DeadAndSilentNodesAreFindings) {
  auto f = test::pair_facts(5, 12.5);
  test::set_row(f, 0, 0, true);
  f.nodes.push_back({"node-5", {5}, false, "rank 5 did not answer the bandwidth phase's start"});
  const RuleOutcome o = test::run_pair_rule("fleet-node-bandwidth-low", f);
  ASSERT_EQ(o.findings.size(), 2u);
  EXPECT_EQ(o.findings[0].node, "node-5");
  EXPECT_NE(o.findings[0].message.find("did not take part"), std::string::npos);
  EXPECT_EQ(o.findings[1].node, "node-0");
  EXPECT_NE(o.findings[1].message.find("every exchange with its 4 peers timed out"),
            std::string::npos)
      << o.findings[1].message;
}

}  // namespace
}  // namespace trainready
