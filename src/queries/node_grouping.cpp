#include "queries/node_grouping.h"

namespace trainready {

Grouping group_nodes(
    const std::vector<NodeFacts>& nodes,
    const std::function<std::optional<NodeValue>(const NodeFacts&, std::string& why)>& get) {
  Grouping g;
  for (const NodeFacts& n : nodes) {
    std::string why;
    auto v = get(n, why);
    if (!v) {
      g.unknown.push_back(n.label + ": " + why);
      continue;
    }
    g.nodes_by_value[v->value].push_back(n.label);
    g.evidence.push_back(
        {n.label + ": " + (v->value.empty() ? std::string("(empty)") : v->value), v->where});
  }
  return g;
}

std::string describe_groups(const Grouping& g) {
  std::string s;
  for (const auto& [value, labels] : g.nodes_by_value) {
    if (!s.empty()) s += "; ";
    s += (value.empty() ? std::string("(empty)") : value) + " on ";
    for (std::size_t i = 0; i < labels.size(); ++i) s += (i ? ", " : "") + labels[i];
  }
  return s;
}

}  // namespace trainready
