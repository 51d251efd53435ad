#pragma once
// The bandwidth phase of `fleet --bandwidth` as facts: an all-reduce sweep over every rank and a
// matrix of pairwise bandwidths between nodes, each with its provenance (ranks, hosts, sizes,
// repeats, transport). The sources (src/fleet/bandwidth/) measure; the fleet-* bandwidth rules
// judge; nothing here decides what is low.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainready {

// One node pair on one rail at one message size. Bandwidth is per direction while both
// directions run at once (each side sends `size_bytes` and receives as many, `iterations` times
// per repeat): GB/s = 1e9 B/s, from the slower of the two sides' clocks.
struct PairCell {
  bool measured = false;    // false: the pair was not run (a node missing before the phase)
  bool timed_out = false;   // the exchange did not finish within the step's timeout
  double gbytes_per_s = 0;  // the median of `repeats_gbytes`; 0 when timed out
  std::vector<double> repeats_gbytes;
  bool retested = false;          // the classifier found it suspicious and it was run again
  double first_gbytes_per_s = 0;  // the value before the re-test (when retested)
  int round = -1;                 // the schedule's round it ran in (0-based)
};

// n x n cells for one rail at one size, row-major; the diagonal is unused.
struct PairMatrix {
  int rail = 0;
  std::uint64_t size_bytes = 0;
  int nodes = 0;
  std::vector<PairCell> cells;
  PairCell& at(int a, int b) { return cells[static_cast<std::size_t>(a * nodes + b)]; }
  const PairCell& at(int a, int b) const { return cells[static_cast<std::size_t>(a * nodes + b)]; }
};

struct PairNode {
  std::string host;        // MPI_Get_processor_name of its ranks
  std::vector<int> ranks;  // by local index: rail g is ranks[g]
  bool responded = true;   // answered the phase's start (a timed barrier) and sent its results
  std::string why_not;     // when it did not: which step timed out
};

// The all-reduce over every rank before the pairs: busbw against size.
struct AllReducePoint {
  std::uint64_t size_bytes = 0;
  double time_us = 0;  // median over repeats, slowest rank
  double busbw_gbytes_per_s = 0;
  long wrong = 0;
};

struct PairBandwidthFacts {
  std::string transport;     // "MPI (Open MPI v4.1.4), host memory" or "NCCL 2.21.5, GPU memory"
  std::string rail_meaning;  // what a rail is for this transport, in one sentence
  int rails = 1;
  std::vector<PairNode> nodes;
  int rounds = 0;      // N-1 (N even) or N (N odd: one node sits out each round)
  int iterations = 0;  // timed exchanges per repeat
  int repeats = 0;
  int warmup = 0;
  double step_timeout_s = 0;
  std::string mode;                  // "quick", "default", "full"
  std::vector<PairMatrix> matrices;  // per (size, rail); the rules judge the largest size
  // The all-reduce sweep (empty when it did not run) and why it did not.
  std::vector<AllReducePoint> allreduce;
  std::string allreduce_backend;
  std::string allreduce_skipped;
  // What one cell should reach from the catalog, when the VM size and transport give one.
  std::optional<double> expected_gbytes_per_s;
  std::string expected_formula;  // the numbers, as a line
  std::string expected_why_unknown;
  double seconds = 0;  // wall time of the whole phase

  std::uint64_t largest_size() const {
    std::uint64_t s = 0;
    for (const auto& m : matrices) s = m.size_bytes > s ? m.size_bytes : s;
    return s;
  }
};

}  // namespace trainready
