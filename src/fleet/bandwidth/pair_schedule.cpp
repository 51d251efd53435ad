#include "fleet/bandwidth/pair_schedule.h"

#include <algorithm>
#include <set>

namespace trainready {

std::vector<PairRound> round_robin_schedule(int nodes) {
  std::vector<PairRound> rounds;
  if (nodes < 2) return rounds;
  const int m = nodes % 2 ? nodes + 1 : nodes;  // with a ghost node when odd
  const int ghost = nodes % 2 ? nodes : -1;
  const int ring = m - 1;  // nodes 0..m-2 rotate; node m-1 stays put
  for (int r = 0; r < ring; ++r) {
    PairRound round;
    auto add = [&](int a, int b) {
      if (a == ghost || b == ghost) {
        round.bye = a == ghost ? b : a;
        return;
      }
      round.pairs.emplace_back(std::min(a, b), std::max(a, b));
    };
    add(m - 1, r);
    for (int k = 1; k < m / 2; ++k) add((r + k) % ring, (r - k + ring) % ring);
    std::sort(round.pairs.begin(), round.pairs.end());
    rounds.push_back(std::move(round));
  }
  return rounds;
}

std::vector<PairRound> rounds_for_pairs(const std::vector<std::pair<int, int>>& pairs) {
  std::vector<PairRound> rounds;
  std::vector<std::set<int>> busy;
  for (auto [a, b] : pairs) {
    if (a == b) continue;
    std::size_t r = 0;
    while (r < rounds.size() && (busy[r].count(a) || busy[r].count(b))) ++r;
    if (r == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back();
    }
    rounds[r].pairs.emplace_back(std::min(a, b), std::max(a, b));
    busy[r].insert(a);
    busy[r].insert(b);
  }
  return rounds;
}

int partner_in(const PairRound& round, int node) {
  for (auto [a, b] : round.pairs) {
    if (a == node) return b;
    if (b == node) return a;
  }
  return -1;
}

}  // namespace trainready
