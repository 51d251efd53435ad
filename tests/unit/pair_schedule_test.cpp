// The round-robin schedule of the pairwise test: every pair exactly once, every node at most
// once per round, N-1 rounds for even N (everyone busy), N rounds with one bye each for odd N.
#include <gtest/gtest.h>

#include <set>

#include "fleet/bandwidth/pair_schedule.h"

namespace trainready {
namespace {

void check_schedule(int n) {
  const auto rounds = round_robin_schedule(n);
  ASSERT_EQ(static_cast<int>(rounds.size()), n % 2 ? n : n - 1) << n;
  std::set<std::pair<int, int>> seen;
  std::set<int> byes;
  for (const PairRound& r : rounds) {
    std::set<int> busy;
    EXPECT_EQ(static_cast<int>(r.pairs.size()), n / 2) << n;
    for (auto [a, b] : r.pairs) {
      EXPECT_LT(a, b);
      EXPECT_GE(a, 0);
      EXPECT_LT(b, n);
      EXPECT_TRUE(busy.insert(a).second) << "node " << a << " twice in a round, n=" << n;
      EXPECT_TRUE(busy.insert(b).second) << "node " << b << " twice in a round, n=" << n;
      EXPECT_TRUE(seen.insert({a, b}).second) << a << "-" << b << " twice, n=" << n;
      if (n <= 64) {  // partner_in scans the round: quadratic at 512 nodes
        EXPECT_EQ(partner_in(r, a), b);
        EXPECT_EQ(partner_in(r, b), a);
      }
    }
    if (n % 2) {
      ASSERT_GE(r.bye, 0);
      EXPECT_EQ(busy.count(r.bye), 0u);
      EXPECT_EQ(partner_in(r, r.bye), -1);
      byes.insert(r.bye);
      EXPECT_EQ(static_cast<int>(busy.size()), n - 1) << "all but the bye are busy";
    } else {
      EXPECT_EQ(r.bye, -1);
      EXPECT_EQ(static_cast<int>(busy.size()), n) << "every node busy every round";
    }
  }
  EXPECT_EQ(static_cast<int>(seen.size()), n * (n - 1) / 2) << "every pair once, n=" << n;
  if (n % 2) {
    EXPECT_EQ(static_cast<int>(byes.size()), n) << "each node sits out exactly once";
  }
}

TEST(PairSchedule, EveryPairOnceEveryNodeOncePerRound) {
  for (int n = 2; n <= 65; ++n) check_schedule(n);
  check_schedule(512);
}

TEST(PairSchedule, FewerThanTwoNodesHaveNoRounds) {
  EXPECT_TRUE(round_robin_schedule(0).empty());
  EXPECT_TRUE(round_robin_schedule(1).empty());
}

TEST(PairSchedule, RetestRoundsKeepNodesDistinct) {
  const std::vector<std::pair<int, int>> pairs = {{0, 1}, {1, 2}, {2, 3}, {0, 3}, {4, 5}, {1, 0}};
  const auto rounds = rounds_for_pairs(pairs);
  std::size_t total = 0;
  for (const PairRound& r : rounds) {
    std::set<int> busy;
    for (auto [a, b] : r.pairs) {
      EXPECT_TRUE(busy.insert(a).second);
      EXPECT_TRUE(busy.insert(b).second);
    }
    total += r.pairs.size();
  }
  EXPECT_EQ(total, pairs.size());
  EXPECT_EQ(rounds.size(), 3u);  // 0-1, 1-2 and 1-0 share node 1
}

}  // namespace
}  // namespace trainready
