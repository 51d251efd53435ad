#include "report/json/watch_section.h"

namespace trainready {

nlohmann::json watch_json(const WatchFacts& w) {
  using nlohmann::json;
  json nodes = json::array();
  for (const WatchNodeFacts& n : w.nodes) {
    json labels = json::object();
    for (const WatchLabelShare& l : n.labels) {
      json x = {{"intervals", l.intervals},
                {"seconds", l.seconds},
                {"gpu_idle_seconds", l.gpu_idle_seconds},
                {"time_ratio", l.time_share},
                {"gpu_idle_ratio", n.gpu_busy_ratio ? json(l.gpu_idle_share) : json(nullptr)}};
      if (!l.detail.empty()) x["detail"] = l.detail;
      labels[l.label] = std::move(x);
    }
    json summary = {{"headline", n.headline},
                    {"intervals", n.intervals},
                    {"seconds", n.seconds},
                    {"labels", labels},
                    {"unavailable", n.unavailable},
                    {"gpu_busy_ratio", n.gpu_busy_ratio ? json(*n.gpu_busy_ratio) : json(nullptr)},
                    {"gpus", n.gpus}};
    nodes.push_back({{"node", n.node}, {"summary", summary}});
  }
  json out = {{"mode", w.mode}, {"hang_after_seconds", w.hang_after_s}, {"nodes", nodes}};
  if (w.job) {
    json ranks = json::array();
    json stragglers = json::array();
    for (const WatchJobRank& r : w.job->ranks) {
      ranks.push_back({{"rank", r.rank},
                       {"host", r.host},
                       {"state", r.state},
                       {"intervals", r.intervals},
                       {"judged_intervals", r.judged_intervals},
                       {"straggler_intervals", r.straggler_intervals},
                       {"straggler_seconds", r.straggler_seconds},
                       {"unreadable_messages", r.unreadable_messages}});
      if (r.straggler_intervals > 0)
        stragglers.push_back({{"rank", r.rank},
                              {"node", r.node},
                              {"peers", r.peers},
                              {"intervals", r.straggler_intervals},
                              {"seconds", r.straggler_seconds}});
    }
    out["job"] = {{"launcher", w.job->launcher},
                  {"size", w.job->size},
                  {"ranks", ranks},
                  {"stragglers", stragglers}};
  }
  return out;
}

}  // namespace trainready
