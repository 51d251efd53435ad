#pragma once
// Which nodes exchange with which, round by round: the round-robin tournament's circle method
// (Kirkman 1847; the "Berger tables" of chess pairings). N nodes take N-1 rounds of N/2
// concurrent pairs when N is even, every pair exactly once and every node busy in every round;
// for odd N a ghost node is added, so there are N rounds and the node paired with it sits out
// (a bye). mpiGraph's "rank -> rank + D" steps cover every pair in N-1 steps too, but each rank
// sends to one peer and receives from another, so a slow cell cannot be told from its neighbour;
// here both directions of one pair run together and nothing else touches those two nodes.
#include <utility>
#include <vector>

namespace trainready {

struct PairRound {
  std::vector<std::pair<int, int>> pairs;  // (a, b) with a < b
  int bye = -1;                            // the node that sits out (odd N), else -1
};

// Rounds for `nodes` nodes; empty for fewer than two.
std::vector<PairRound> round_robin_schedule(int nodes);

// Rounds for a chosen set of pairs (the re-test of suspicious cells): each round holds pairs
// whose nodes are all distinct, filled greedily in the given order.
std::vector<PairRound> rounds_for_pairs(const std::vector<std::pair<int, int>>& pairs);

// This node's partner in a round, or -1 (a bye, or not in the round).
int partner_in(const PairRound& round, int node);

}  // namespace trainready
