#pragma once
// Grouping a per-node value across the nodes of one job (for the cluster rules): which nodes
// share which value, and one line of evidence per node.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "facts/node_digest.h"

namespace trainready {

struct Grouping {
  std::map<std::string, std::vector<std::string>> nodes_by_value;  // value -> node labels
  std::vector<Evidence> evidence;                                  // one line per node
  std::vector<std::string> unknown;  // "node: why" where the value is missing
};

// The nodes' values of one property (facts/node_digest.h), in node order.
Grouping group_nodes(const ClusterNodes& nodes, DigestKey key);
// The value most nodes share, when at least kMajorityMinNodes nodes have one and more than half
// of them share it: the nodes that differ are then the suspects ("62 nodes agree, these 2
// differ"), not a cluster split down the middle.
inline constexpr std::size_t kMajorityMinNodes = 4;
struct Majority {
  std::string value;
  std::size_t agree = 0;
  std::vector<std::pair<std::string, std::string>> differ;  // (node, its value)
};
std::optional<Majority> majority_of(const Grouping& g);
// The labels of the nodes that differ from the majority; empty without a majority.
std::vector<std::string> odd_nodes(const Grouping& g);
// "0x8001 on a, b; 0x8002 on c", or with a majority "62 nodes agree on 0x8001; 2 differ: c
// (0x8002), d (0x8003)".
std::string describe_groups(const Grouping& g);

}  // namespace trainready
