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
  return {{"mode", w.mode}, {"hang_after_seconds", w.hang_after_s}, {"nodes", nodes}};
}

}  // namespace trainready
