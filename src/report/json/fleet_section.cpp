#include "report/json/fleet_section.h"

namespace trainready {

using nlohmann::json;

json fleet_json(const Report& r) {
  const FleetFacts& fl = *r.fleet;
  json ranks = json::array();
  for (const FleetRank& k : fl.ranks) {
    auto secs = [](double s) { return s < 0 ? json(nullptr) : json(s); };
    ranks.push_back({{"rank", k.rank},
                     {"host", k.host},
                     {"pid", k.pid},
                     {"state", fleet_rank_state_name(k.state)},
                     {"detail", k.detail},
                     {"tool_version", k.tool_version},
                     {"node_index", k.node >= 0 ? json(k.node) : json(nullptr)},
                     {"hello_s", secs(k.hello_s)},
                     {"facts_s", secs(k.facts_s)},
                     {"message_bytes", k.bytes}});
  }
  json out{
      {"size", fl.size},           {"launcher", fl.launcher}, {"root_version", fl.root_version},
      {"timeout_s", fl.timeout_s}, {"gather_s", fl.gather_s}, {"ranks", ranks}};
  if (!r.fleet_summary) return out;
  const FleetSummary& s = *r.fleet_summary;
  json rows = json::array();
  for (const FleetNodeRow& x : s.rows)
    rows.push_back({{"rank", x.rank},
                    {"node", x.node},
                    {"host", x.host},
                    {"state", x.state},
                    {"verdict", x.verdict},
                    {"errors", x.errors},
                    {"warnings", x.warnings},
                    {"notes", x.notes},
                    {"rules", x.rules}});
  json groups = json::array();
  for (const FleetCauseGroup& g : s.groups) {
    json idx = json::array();
    for (std::size_t i : g.findings) idx.push_back(i);
    groups.push_back({{"rule", g.rule_id},
                      {"severity", std::string(to_string(g.severity))},
                      {"title", g.title},
                      {"nodes", g.nodes},
                      {"finding_indices", idx}});
  }
  out["node_table"] = rows;
  out["causes"] = groups;
  out["counts"] = {{"ready", s.ready},
                   {"with_warnings", s.warnings},
                   {"not_ready", s.not_ready},
                   {"without_facts", s.no_facts}};
  return out;
}

}  // namespace trainready
