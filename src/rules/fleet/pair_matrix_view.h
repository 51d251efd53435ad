#pragma once
// What the pair-bandwidth rules share: the matrices they judge (the largest message size, one
// per rail), the classification of each, and how a node and a value read in a finding.
#include <cstdio>
#include <string>
#include <vector>

#include "facts/pair_bandwidth_facts.h"
#include "queries/pair_outliers.h"

namespace trainready {

struct JudgedMatrix {
  const PairMatrix* matrix = nullptr;
  PairClassification c;
};

inline std::vector<JudgedMatrix> judged_matrices(const PairBandwidthFacts& f) {
  std::vector<JudgedMatrix> out;
  PairOutlierOptions o;
  o.expected_gbytes = f.expected_gbytes_per_s;
  const std::uint64_t size = f.largest_size();
  for (const PairMatrix& m : f.matrices)
    if (m.size_bytes == size) out.push_back({&m, classify_pairs(m, o)});
  return out;
}

inline std::string node_name(const PairBandwidthFacts& f, int i) {
  return i >= 0 && i < static_cast<int>(f.nodes.size()) ? f.nodes[static_cast<std::size_t>(i)].host
                                                        : "node " + std::to_string(i);
}

inline std::string gbps(double v) {
  char b[32];
  std::snprintf(b, sizeof b, v < 0.1 ? "%.3g GB/s" : "%.2f GB/s", v);
  return b;
}

inline std::string fixed2(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

inline std::string ratio_text(double x, double of) {
  char b[32];
  std::snprintf(b, sizeof b, of > 0 && x / of < 0.1 ? "%.2gx" : "%.2fx", of > 0 ? x / of : 0);
  return b;
}

inline std::string rail_suffix(const PairBandwidthFacts& f, const PairMatrix& m) {
  return f.rails > 1 ? " on rail " + std::to_string(m.rail) : "";
}

// "4 MiB x 3 exchanges x 1 repeat, MPI (Open MPI v4.1.4), host memory": what a cell measured.
inline std::string matrix_provenance(const PairBandwidthFacts& f, const PairMatrix& m) {
  return std::to_string(m.size_bytes) + " B messages, both directions at once, " +
         std::to_string(f.iterations) + " exchanges x " + std::to_string(f.repeats) +
         " repeats per pair, " + f.transport;
}

}  // namespace trainready
