#include "fleet/fleet_summary.h"

#include <algorithm>
#include <map>
#include <set>

#include "rules/registry.h"

namespace trainready {

FleetSummary summarize_fleet(const Report& r) {
  FleetSummary s;
  if (!r.fleet) return s;
  std::map<std::string, std::size_t> row_of;  // node label -> row
  for (const FleetRank& k : r.fleet->ranks) {
    FleetNodeRow row;
    row.rank = k.rank;
    row.host = k.host;
    row.state = fleet_rank_state_name(k.state);
    row.node = k.node >= 0 && r.cluster_nodes &&
                       static_cast<std::size_t>(k.node) < r.cluster_nodes->labels.size()
                   ? r.cluster_nodes->labels[static_cast<std::size_t>(k.node)]
                   : fleet_rank_label(k);
    row_of[row.node] = s.rows.size();
    s.rows.push_back(std::move(row));
  }
  std::map<std::string, std::size_t> group_of;  // rule id -> group
  std::vector<std::set<std::string>> rules_of(s.rows.size());
  const std::vector<Finding>& fs = r.evaluation.findings;
  for (std::size_t i = 0; i < fs.size(); ++i) {
    const Finding& f = fs[i];
    auto [it, fresh] = group_of.emplace(f.rule_id, s.groups.size());
    if (fresh) {
      FleetCauseGroup g;
      g.rule_id = f.rule_id;
      g.severity = f.severity;
      const Rule* rule = find_rule(f.rule_id);
      g.title = rule ? std::string(rule->title()) : f.rule_id;
      s.groups.push_back(std::move(g));
    }
    FleetCauseGroup& g = s.groups[it->second];
    g.severity = std::max(g.severity, f.severity);
    g.findings.push_back(i);
    // A node finding concerns its node; a cluster finding the nodes it blames, if any.
    std::vector<std::string> who = f.nodes;
    if (!f.node.empty()) who.push_back(f.node);
    for (const std::string& n : who) {
      if (std::find(g.nodes.begin(), g.nodes.end(), n) == g.nodes.end()) g.nodes.push_back(n);
      auto row = row_of.find(n);
      if (row == row_of.end()) continue;
      FleetNodeRow& x = s.rows[row->second];
      (f.severity == Severity::kError     ? x.errors
       : f.severity == Severity::kWarning ? x.warnings
                                          : x.notes)++;
      rules_of[row->second].insert(f.rule_id);
    }
  }
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    FleetNodeRow& x = s.rows[i];
    x.rules.assign(rules_of[i].begin(), rules_of[i].end());
    if (x.state != "ok") {
      x.verdict = "no_facts";
      ++s.no_facts;
    } else if (x.errors > 0) {
      x.verdict = "not_ready";
      ++s.not_ready;
    } else if (x.warnings > 0) {
      x.verdict = "warnings";
      ++s.warnings;
    } else {
      x.verdict = "ready";
      ++s.ready;
    }
  }
  std::stable_sort(s.groups.begin(), s.groups.end(),
                   [](const FleetCauseGroup& a, const FleetCauseGroup& b) {
                     if (a.severity != b.severity) return a.severity > b.severity;
                     return a.nodes.size() > b.nodes.size();
                   });
  return s;
}

}  // namespace trainready
