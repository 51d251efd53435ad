#include "queries/node_grouping.h"

namespace trainready {

Grouping group_nodes(const ClusterNodes& nodes, DigestKey key) {
  Grouping g;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string& label = nodes.labels[i];
    const DigestValue& v = nodes.digest(i)[key];
    if (!v.known) {
      g.unknown.push_back(label + ": " + v.why);
      continue;
    }
    g.nodes_by_value[v.value].push_back(label);
    g.evidence.push_back(
        {label + ": " + (v.value.empty() ? std::string("(empty)") : v.value), v.where});
  }
  return g;
}

std::optional<Majority> majority_of(const Grouping& g) {
  std::size_t known = 0;
  const std::string* top = nullptr;
  std::size_t most = 0;
  for (const auto& [value, labels] : g.nodes_by_value) {
    known += labels.size();
    if (labels.size() > most) {
      most = labels.size();
      top = &value;
    }
  }
  if (known < kMajorityMinNodes || top == nullptr || 2 * most <= known) return std::nullopt;
  Majority m;
  m.value = *top;
  m.agree = most;
  for (const auto& [value, labels] : g.nodes_by_value) {
    if (value == *top) continue;
    for (const std::string& l : labels) m.differ.emplace_back(l, value);
  }
  return m;
}

std::vector<std::string> odd_nodes(const Grouping& g) {
  std::vector<std::string> out;
  if (auto m = majority_of(g))
    for (const auto& d : m->differ) out.push_back(d.first);
  return out;
}

std::string describe_groups(const Grouping& g) {
  auto shown = [](const std::string& v) { return v.empty() ? std::string("(empty)") : v; };
  if (auto m = majority_of(g)) {
    std::string s = std::to_string(m->agree) + " nodes agree on " + shown(m->value) + "; " +
                    std::to_string(m->differ.size()) +
                    (m->differ.size() == 1 ? " differs: " : " differ: ");
    for (std::size_t i = 0; i < m->differ.size(); ++i) {
      if (i == 20) {
        s += ", and " + std::to_string(m->differ.size() - 20) + " more";
        break;
      }
      s += (i ? ", " : "") + m->differ[i].first + " (" + shown(m->differ[i].second) + ")";
    }
    return s;
  }
  std::string s;
  for (const auto& [value, labels] : g.nodes_by_value) {
    if (!s.empty()) s += "; ";
    s += (value.empty() ? std::string("(empty)") : value) + " on ";
    for (std::size_t i = 0; i < labels.size(); ++i) s += (i ? ", " : "") + labels[i];
  }
  return s;
}

}  // namespace trainready
