#include "watch/timeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "watch/gpu_busy.h"

namespace trainready::watch {

bool same_session(const Sample& before, const Sample& after) {
  const double mono = after.monotonic - before.monotonic;
  const double wall = after.time - before.time;
  return mono > 0 && std::fabs(wall - mono) <= 1.0 + 0.1 * mono;
}

std::optional<LabelledInterval> Timeline::add(const Sample& s) {
  std::optional<LabelledInterval> out;
  if (prev_ && same_session(*prev_, s)) {
    LabelledInterval li;
    li.interval = make_interval(*prev_, s, options_);
    li.verdict = attributor_.label(li.interval);
    summary_.add(li.interval, li.verdict);
    out = std::move(li);
  }
  summary_.set_unavailable(unavailable_sources(s));
  if (s.nccl_ras) summary_.add_ras(*s.nccl_ras);
  prev_ = s;
  return out;
}

namespace {

// The busy ratio of `n` at time t (the interval that contains it), if it has GPU data then.
std::optional<double> busy_at(const NodeTimeline& n, double t) {
  auto it =
      std::upper_bound(n.intervals.begin(), n.intervals.end(), t,
                       [](double v, const LabelledInterval& li) { return v < li.interval.end; });
  if (it == n.intervals.end() || it->interval.start > t) return std::nullopt;
  return gpu_busy_share(it->interval);
}

}  // namespace

void mark_stragglers(std::vector<NodeTimeline>& nodes, const Thresholds& t) {
  if (nodes.size() < 2) return;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    NodeTimeline& me = nodes[i];
    Summary redo;
    redo.set_node(me.node);
    for (LabelledInterval& li : me.intervals) {
      const double mid = (li.interval.start + li.interval.end) / 2;
      std::vector<double> peers;
      for (std::size_t j = 0; j < nodes.size(); ++j) {
        if (j == i) continue;
        if (auto b = busy_at(nodes[j], mid)) peers.push_back(*b);
      }
      std::optional<double> median;
      if (!peers.empty()) {
        std::sort(peers.begin(), peers.end());
        median = peers.size() % 2 == 1
                     ? peers[peers.size() / 2]
                     : (peers[peers.size() / 2 - 1] + peers[peers.size() / 2]) / 2;
      }
      if (auto v = judge_straggler(li.interval, li.verdict, median, peers.size(), t))
        li.verdict = std::move(*v);
      redo.add(li.interval, li.verdict);
    }
    redo.set_unavailable(me.summary.to_json()["unavailable"].get<std::vector<std::string>>());
    me.summary = std::move(redo);
  }
}

}  // namespace trainready::watch
