#pragma once
// NodeFacts -> NodeDigest (facts/node_digest.h): the values the cluster rules compare, each with
// its provenance or the reason it is unknown, worded as the rules quote them.
#include <string>
#include <unordered_map>
#include <vector>

#include "facts/node_digest.h"
#include "facts/node_facts.h"
#include "rules/run_options.h"

namespace trainready {

NodeDigest digest_node(const NodeFacts& n, const RunOptions* options);

// Builds a ClusterNodes, keeping one copy of each distinct digest.
class ClusterNodesBuilder {
 public:
  // Index of `d` among the distinct digests (added when new).
  std::uint32_t intern(NodeDigest d);
  void add(std::string label, std::uint32_t digest);
  void add(std::string label, NodeDigest d) { add(std::move(label), intern(std::move(d))); }
  const ClusterNodes& nodes() const { return c_; }
  ClusterNodes take() { return std::move(c_); }

 private:
  ClusterNodes c_;
  std::unordered_map<std::string, std::uint32_t> index_;
};

ClusterNodes cluster_nodes_of(const std::vector<NodeFacts>& nodes, const RunOptions* options);

}  // namespace trainready
