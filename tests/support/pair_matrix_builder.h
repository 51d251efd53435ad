#pragma once
// Synthetic pair-bandwidth facts for the classifier and rule tests: every pair at `base` GB/s
// with a deterministic +-`noise` spread, then single cells or whole rows changed.
#include <string>

#include "facts/pair_bandwidth_facts.h"

namespace trainready::test {

inline PairBandwidthFacts pair_facts(int n, double base, double noise = 0.03) {
  PairBandwidthFacts f;
  f.transport = "MPI (test), host memory";
  f.rails = 1;
  f.rounds = n % 2 ? n : n - 1;
  f.iterations = 5;
  f.repeats = 3;
  f.step_timeout_s = 30;
  for (int i = 0; i < n; ++i) f.nodes.push_back({"node-" + std::to_string(i), {i}, true, ""});
  PairMatrix m;
  m.nodes = n;
  m.size_bytes = 4u << 20;
  m.cells.resize(static_cast<std::size_t>(n * n));
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      // A fixed spread in [-noise, +noise]: the same matrix every run.
      const double spread = noise * (((a * 7 + b * 13) % 11) / 5.0 - 1.0);
      PairCell c;
      c.measured = true;
      c.gbytes_per_s = base * (1 + spread);
      c.repeats_gbytes = {c.gbytes_per_s};
      c.round = 0;
      m.at(a, b) = c;
      m.at(b, a) = c;
    }
  f.matrices.push_back(m);
  return f;
}

inline void set_cell(PairBandwidthFacts& f, int a, int b, double v, bool timed_out = false) {
  for (PairMatrix& m : f.matrices) {
    for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
      m.at(x, y).gbytes_per_s = timed_out ? 0 : v;
      m.at(x, y).timed_out = timed_out;
    }
  }
}

inline void set_row(PairBandwidthFacts& f, int a, double v, bool timed_out = false) {
  for (int b = 0; b < static_cast<int>(f.nodes.size()); ++b)
    if (b != a) set_cell(f, a, b, v, timed_out);
}

}  // namespace trainready::test
