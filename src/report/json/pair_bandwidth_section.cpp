#include "report/json/pair_bandwidth_section.h"

namespace trainready {

nlohmann::json pair_bandwidth_json(const PairBandwidthFacts& f) {
  using nlohmann::json;
  json nodes = json::array();
  for (const PairNode& n : f.nodes) {
    json x{{"host", n.host}, {"ranks", n.ranks}, {"responded", n.responded}};
    if (!n.why_not.empty()) x["why_not"] = n.why_not;
    nodes.push_back(x);
  }
  json matrices = json::array();
  for (const PairMatrix& m : f.matrices) {
    // Rows of GB/s (null: not measured or the diagonal), and the cells' details once per pair.
    json rows = json::array();
    json pairs = json::array();
    for (int a = 0; a < m.nodes; ++a) {
      json row = json::array();
      for (int b = 0; b < m.nodes; ++b) {
        const PairCell& c = m.at(a, b);
        row.push_back(a == b || !c.measured || c.timed_out ? json(nullptr) : json(c.gbytes_per_s));
        if (b <= a || !c.measured) continue;
        json p{{"a", a},
               {"b", b},
               {"gbytes_per_s", c.timed_out ? json(nullptr) : json(c.gbytes_per_s)},
               {"timed_out", c.timed_out},
               {"repeats_gbytes_per_s", c.repeats_gbytes},
               {"round", c.round},
               {"retested", c.retested}};
        if (c.retested) p["first_gbytes_per_s"] = c.first_gbytes_per_s;
        pairs.push_back(p);
      }
      rows.push_back(row);
    }
    matrices.push_back(
        {{"rail", m.rail}, {"size_bytes", m.size_bytes}, {"gbytes_per_s", rows}, {"pairs", pairs}});
  }
  json allreduce = json::array();
  for (const AllReducePoint& p : f.allreduce)
    allreduce.push_back({{"size_bytes", p.size_bytes},
                         {"time_us", p.time_us},
                         {"busbw_gbytes_per_s", p.busbw_gbytes_per_s},
                         {"wrong", p.wrong}});
  json j{{"mode", f.mode},
         {"transport", f.transport},
         {"rails", f.rails},
         {"rail_meaning", f.rail_meaning},
         {"rounds", f.rounds},
         {"warmup", f.warmup},
         {"iterations", f.iterations},
         {"repeats", f.repeats},
         {"step_timeout_s", f.step_timeout_s},
         {"seconds", f.seconds},
         {"unit", "GB/s (1e9 bytes/s) per direction, both directions at once"},
         {"nodes", nodes},
         {"matrices", matrices},
         {"allreduce", {{"backend", f.allreduce_backend}, {"points", allreduce}}}};
  if (!f.allreduce_skipped.empty()) j["allreduce"]["skipped"] = f.allreduce_skipped;
  if (f.expected_gbytes_per_s)
    j["expected"] = {{"gbytes_per_s", *f.expected_gbytes_per_s}, {"formula", f.expected_formula}};
  else
    j["expected"] = {{"gbytes_per_s", nullptr}, {"why_unknown", f.expected_why_unknown}};
  return j;
}

}  // namespace trainready
