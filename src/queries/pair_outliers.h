#pragma once
// Node or link: reading a pair-bandwidth matrix (facts/pair_bandwidth_facts.h).
//   - A node whose row is low (its median over all its peers) is a bad node: every path through
//     it is slow, so the cause is on the node (HCA, port rate, PCIe, driver, a noisy neighbour).
//   - A cell that is low while both its nodes are fine with everyone else is a bad link: a cable,
//     a switch port or a route between those two.
// "Low" is robust against the peers, by the median and the median absolute deviation (MAD) of
// the bandwidths' logarithms (bandwidths spread by factors): a value is an outlier when its
// modified z-score 0.6745 (log x - median) / MAD is below -3.5 (Iglewicz & Hoaglin, "How to
// Detect and Handle Outliers", ASQC 1993, the threshold they recommend), and only when it is
// also at least `min_drop` below the median: with quiet
// networks the MAD is tiny and a 2 % dip would otherwise be an "outlier" (the flaky thresholds
// that drain healthy nodes: azurehpc issue 628). Against the VM size's catalog figure, a value
// under `expected_fraction` of it is low whatever its peers do.
#include <optional>
#include <string>
#include <vector>

#include "facts/pair_bandwidth_facts.h"

namespace trainready {

struct PairOutlierOptions {
  double z_threshold = 3.5;               // Iglewicz & Hoaglin's modified z-score cut-off
  double min_drop = 0.25;                 // and at least 25 % below the peers' median
  double expected_fraction = 0.75;        // as nccl-tests-busbw-low's error line
  std::optional<double> expected_gbytes;  // per cell, from the catalog
};

struct NodeOutlier {
  int node = -1;
  double row_median = 0;  // GB/s over its measured cells
  double modified_z = 0;  // 0 when the MAD is 0
  bool low_vs_peers = false;
  bool low_vs_expected = false;
  int cells = 0;
  int timed_out = 0;
};

struct LinkOutlier {
  int a = -1, b = -1;
  double gbytes = 0;
  double modified_z = 0;
  bool timed_out = false;
  bool low_vs_peers = false;
  bool low_vs_expected = false;
};

struct PairClassification {
  int nodes = 0;
  double node_median = 0;              // median of the row medians, GB/s
  double node_mad = 0;                 // MAD of their logarithms
  double cell_median = 0;              // median of the cells between nodes that are not low, GB/s
  double cell_mad = 0;                 // MAD of their logarithms
  std::vector<NodeOutlier> rows;       // one per node with a measured cell
  std::vector<int> bad_nodes;          // low rows
  std::vector<LinkOutlier> bad_links;  // low cells between two nodes that are not bad
  // Every low cell (also those on a bad node's row): what the re-test runs again.
  std::vector<std::pair<int, int>> suspicious;
  std::string note;  // why a judgement could not be made (too few nodes)
};

double median_of(std::vector<double> v);  // 0 for an empty vector

PairClassification classify_pairs(const PairMatrix& m, const PairOutlierOptions& o);

}  // namespace trainready
