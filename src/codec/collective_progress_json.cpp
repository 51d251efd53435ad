#include "codec/collective_progress_json.h"

namespace trainready {
namespace {

using nlohmann::json;

json rank_json(const RasRank& r) {
  json j{{"rank", r.rank}, {"host", r.host}, {"pid", r.pid}, {"cuda_dev", r.cuda_dev}};
  if (!r.status.empty()) j["status"] = r.status;
  if (!r.op_counts.empty()) j["op_counts"] = r.op_counts;
  if (r.dead) j["dead"] = true;
  return j;
}

}  // namespace

json to_json(const CollectiveProgressFacts& f) {
  json j{{"files", f.files}, {"notes", f.notes}};
  json ras = json::array();
  for (const RasReport& r : f.ras) {
    json comms = json::array();
    for (const RasComm& c : r.comms) {
      json x{{"hash", c.hash}, {"size", c.size}, {"status", c.status}, {"errors", c.errors}};
      json ranks = json::array();
      for (const RasRank& k : c.ranks) ranks.push_back(rank_json(k));
      json missing = json::array();
      for (const RasRank& k : c.missing) missing.push_back(rank_json(k));
      x["ranks"] = ranks;
      x["missing_ranks"] = missing;
      json mism = json::array();
      for (const RasMismatch& m : c.mismatches) {
        json groups = json::array();
        for (const RasCountGroup& g : m.groups) {
          json listed = json::array();
          for (const RasRank& k : g.listed) listed.push_back(k.rank);
          groups.push_back({{"operations", g.ops}, {"ranks", g.ranks}, {"listed", listed}});
        }
        mism.push_back({{"collective", m.collective}, {"groups", groups}});
      }
      x["mismatches"] = mism;
      comms.push_back(std::move(x));
    }
    ras.push_back({{"source", r.source},
                   {"format", r.format},
                   {"nccl_version", r.nccl_version},
                   {"all_ok", r.all_ok},
                   {"timeouts", r.timeouts},
                   {"flagged", r.flagged},
                   {"communicators", comms}});
  }
  j["ras"] = ras;
  json fr = json::array();
  for (const FrDump& d : f.flight_recorder) {
    json groups = json::array();
    for (const FrProcessGroup& g : d.groups)
      groups.push_back({{"id", g.id},
                        {"name", g.name},
                        {"desc", g.desc},
                        {"ranks", g.ranks.size()},
                        {"last_enqueued", g.last_enqueued},
                        {"last_started", g.last_started},
                        {"last_completed", g.last_completed}});
    json last = nullptr;
    if (!d.entries.empty()) {
      const FrEntry& e = d.entries.back();
      last = {{"profiling_name", e.profiling_name},
              {"collective_seq_id", e.collective_seq_id},
              {"state", e.state},
              {"pg_id", e.pg_id}};
    }
    fr.push_back({{"source", d.source},
                  {"format", d.format},
                  {"rank", d.rank},
                  {"version", d.version},
                  {"comm_lib_version", d.comm_lib_version},
                  {"entries", d.entries.size()},
                  {"last_entry", last},
                  {"process_groups", groups}});
  }
  j["flight_recorder"] = fr;
  json insp = json::array();
  for (const InspectorSeries& s : f.inspector)
    insp.push_back({{"comm_id", s.comm_id},
                    {"comm_name", s.comm_name},
                    {"rank", s.rank},
                    {"nranks", s.nranks},
                    {"host", s.host},
                    {"pid", s.pid},
                    {"collective", s.collective},
                    {"msg_size_bytes", s.msg_size_bytes},
                    {"count", s.count},
                    {"busbw_median_gbytes_per_s", s.busbw_median_gbs},
                    {"exec_time_median_us", s.exec_time_median_us}});
  j["inspector"] = insp;
  return j;
}

}  // namespace trainready
