#pragma once
// Grouping a per-node value across the nodes of one job (for the cluster rules): which nodes
// share which value, and one line of evidence per node.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "facts/node_facts.h"

namespace trainready {

struct NodeValue {
  std::string value;
  Provenance where;
};

struct Grouping {
  std::map<std::string, std::vector<std::string>> nodes_by_value;  // value -> node labels
  std::vector<Evidence> evidence;                                  // one line per node
  std::vector<std::string> unknown;  // "node: why" where the value is missing
};

// `get` returns the node's value, or nullopt with `why` set when it is unknown.
Grouping group_nodes(
    const std::vector<NodeFacts>& nodes,
    const std::function<std::optional<NodeValue>(const NodeFacts&, std::string& why)>& get);
// "0x8001 on a, b; 0x8002 on c"
std::string describe_groups(const Grouping& g);

}  // namespace trainready
