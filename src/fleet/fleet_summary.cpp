#include "fleet/fleet_summary.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "engine/shared_findings.h"
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
  std::map<std::string, std::size_t> group_of;         // rule id -> group
  std::vector<std::unordered_set<std::string>> named;  // per group: its nodes, to add each once
  std::vector<std::set<std::string>> rules_of(s.rows.size());
  std::size_t at = 0;  // the finding's index in report order
  for_each_finding(r.evaluation, [&](const Finding& f) {
    auto [it, fresh] = group_of.emplace(f.rule_id, s.groups.size());
    if (fresh) {
      FleetCauseGroup g;
      g.rule_id = f.rule_id;
      g.severity = f.severity;
      const Rule* rule = find_rule(f.rule_id);
      g.title = rule ? std::string(rule->title()) : f.rule_id;
      s.groups.push_back(std::move(g));
      named.emplace_back();
    }
    FleetCauseGroup& g = s.groups[it->second];
    g.severity = std::max(g.severity, f.severity);
    g.findings.push_back(at++);
    // A node finding concerns its node; a cluster finding the nodes it blames, if any.
    std::vector<std::string> who = f.nodes;
    if (!f.node.empty()) who.push_back(f.node);
    for (const std::string& n : who) {
      if (named[it->second].insert(n).second) g.nodes.push_back(n);
      auto row = row_of.find(n);
      if (row == row_of.end()) continue;
      FleetNodeRow& x = s.rows[row->second];
      (f.severity == Severity::kError     ? x.errors
       : f.severity == Severity::kWarning ? x.warnings
                                          : x.notes)++;
      rules_of[row->second].insert(f.rule_id);
    }
  });
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
