// The MAD classifier on synthetic matrices: a low row is a node, a single low cell a link,
// noise neither; the catalog's figure catches a row the peers would not.
#include <gtest/gtest.h>

#include <algorithm>

#include "queries/pair_outliers.h"
#include "support/pair_matrix_builder.h"

namespace trainready {
namespace {

using test::pair_facts;
using test::set_cell;
using test::set_row;

PairClassification classify(const PairBandwidthFacts& f, PairOutlierOptions o = {}) {
  return classify_pairs(f.matrices.front(), o);
}

TEST(PairOutliers, NoiseIsNeitherNodeNorLink) {
  for (int n : {3, 4, 8, 16, 64}) {
    const auto c = classify(pair_facts(n, 12.5, 0.08));
    EXPECT_TRUE(c.bad_nodes.empty()) << n;
    EXPECT_TRUE(c.bad_links.empty()) << n;
    EXPECT_TRUE(c.suspicious.empty()) << n;
  }
}

TEST(PairOutliers, LowRowIsABadNodeNotLinks) {
  for (int n : {4, 5, 8, 32}) {
    auto f = pair_facts(n, 12.5);
    set_row(f, 2, 3.0);
    const auto c = classify(f);
    ASSERT_EQ(c.bad_nodes, std::vector<int>{2}) << n;
    EXPECT_TRUE(c.bad_links.empty()) << n << ": the node explains its cells";
    EXPECT_EQ(static_cast<int>(c.suspicious.size()), n - 1) << "its cells are re-tested";
  }
}

TEST(PairOutliers, SingleLowCellIsABadLinkBlamingNeitherNode) {
  for (int n : {4, 5, 8, 32}) {
    auto f = pair_facts(n, 12.5);
    set_cell(f, 1, 2, 0.6);
    const auto c = classify(f);
    EXPECT_TRUE(c.bad_nodes.empty()) << n;
    ASSERT_EQ(c.bad_links.size(), 1u) << n;
    EXPECT_EQ(c.bad_links[0].a, 1);
    EXPECT_EQ(c.bad_links[0].b, 2);
    EXPECT_LT(c.bad_links[0].modified_z, -3.5);
  }
}

TEST(PairOutliers, ASlowLinkAndANoisyCellOnOneRowRetestTheWholeRow) {
  // Four nodes: node 1's slow link to 2 and a noisy cell to 3 pull its median down; every cell
  // of its row goes to the re-test, so the noisy cell can clear it.
  auto f = pair_facts(4, 12.5);
  set_cell(f, 1, 2, 0.004);
  set_cell(f, 1, 3, 7.0);
  const auto c = classify(f);
  ASSERT_EQ(c.bad_nodes, std::vector<int>{1});
  for (auto p : {std::make_pair(0, 1), std::make_pair(1, 2), std::make_pair(1, 3)})
    EXPECT_NE(std::find(c.suspicious.begin(), c.suspicious.end(), p), c.suspicious.end())
        << p.first << "-" << p.second;
  EXPECT_EQ(c.suspicious.size(), 3u);
  // After the re-test the noisy cell is back: the link, not the node.
  set_cell(f, 1, 3, 12.4);
  const auto after = classify(f);
  EXPECT_TRUE(after.bad_nodes.empty());
  ASSERT_EQ(after.bad_links.size(), 1u);
  EXPECT_EQ(after.bad_links[0].a, 1);
  EXPECT_EQ(after.bad_links[0].b, 2);
}

TEST(PairOutliers, TimedOutCellIsALinkAndADeadRowANode) {
  auto f = pair_facts(6, 12.5);
  set_cell(f, 0, 5, 0, true);
  auto c = classify(f);
  ASSERT_EQ(c.bad_links.size(), 1u);
  EXPECT_TRUE(c.bad_links[0].timed_out);
  set_row(f, 3, 0, true);
  c = classify(f);
  EXPECT_EQ(c.bad_nodes, std::vector<int>{3});
}

TEST(PairOutliers, SmallDipBelowMinDropIsNotAnOutlier) {
  // A quiet network has a tiny MAD; 15 % under the median is then a large z-score but not a
  // fault worth draining for.
  auto f = pair_facts(8, 12.5, 0.001);
  set_cell(f, 0, 1, 12.5 * 0.85);
  set_row(f, 4, 12.5 * 0.85);
  const auto c = classify(f);
  EXPECT_TRUE(c.bad_links.empty());
  EXPECT_TRUE(c.bad_nodes.empty());
}

TEST(PairOutliers, BelowTheCatalogWhilePeersMeetIt) {
  // Peers at 45 GB/s, node 5 at 34: 24 % down, under min_drop, so the peers alone do not call
  // it; the catalog's 47.5 GB/s x 0.75 = 35.6 does. At 36 neither does.
  auto f = pair_facts(6, 45, 0.01);
  PairOutlierOptions o;
  o.expected_gbytes = 47.5;
  set_row(f, 5, 36);
  EXPECT_TRUE(classify(f, o).bad_nodes.empty());
  set_row(f, 5, 34);
  EXPECT_TRUE(classify(f).bad_nodes.empty());
  const auto c = classify(f, o);
  ASSERT_EQ(c.bad_nodes, std::vector<int>{5});
  EXPECT_TRUE(c.rows[5].low_vs_expected);
  EXPECT_FALSE(c.rows[5].low_vs_peers);
}

TEST(PairOutliers, TwoNodesCannotTellNodeFromLink) {
  auto f = pair_facts(2, 12.5);
  set_cell(f, 0, 1, 0.1);
  const auto c = classify(f);
  EXPECT_TRUE(c.bad_nodes.empty());
  EXPECT_FALSE(c.note.empty());
}

TEST(PairOutliers, MedianOfEvenAndOdd) {
  EXPECT_DOUBLE_EQ(median_of({}), 0);
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
}

}  // namespace
}  // namespace trainready
