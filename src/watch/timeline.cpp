#include "watch/timeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

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

namespace {

// The median of `peers` as the straggler rule reads it (the middle value, or the mean of the two
// middle ones).
std::optional<double> median_of(std::vector<double>& peers) {
  if (peers.empty()) return std::nullopt;
  std::sort(peers.begin(), peers.end());
  return peers.size() % 2 == 1 ? peers[peers.size() / 2]
                               : (peers[peers.size() / 2 - 1] + peers[peers.size() / 2]) / 2;
}

// Re-labels every interval of every node with the peers' median and count, in node order.
void relabel(std::vector<NodeTimeline>& nodes, const Thresholds& t,
             const std::vector<std::vector<std::pair<std::optional<double>, std::size_t>>>& peer) {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    NodeTimeline& me = nodes[i];
    Summary redo;
    redo.set_node(me.node);
    for (std::size_t k = 0; k < me.intervals.size(); ++k) {
      LabelledInterval& li = me.intervals[k];
      const auto& [median, count] = peer[i][k];
      if (auto v = judge_straggler(li.interval, li.verdict, median, count, t))
        li.verdict = std::move(*v);
      redo.add(li.interval, li.verdict);
    }
    redo.set_unavailable(me.summary.to_json()["unavailable"].get<std::vector<std::string>>());
    me.summary = std::move(redo);
  }
}

using PeerStats = std::vector<std::vector<std::pair<std::optional<double>, std::size_t>>>;

// Every peer of every interval asked directly: O(M x N) for M intervals among N nodes.
PeerStats peer_stats_direct(const std::vector<NodeTimeline>& nodes) {
  PeerStats out(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (const LabelledInterval& li : nodes[i].intervals) {
      const double mid = (li.interval.start + li.interval.end) / 2;
      std::vector<double> peers;
      for (std::size_t j = 0; j < nodes.size(); ++j) {
        if (j == i) continue;
        if (auto b = busy_at(nodes[j], mid)) peers.push_back(*b);
      }
      out[i].emplace_back(median_of(peers), peers.size());
    }
  }
  return out;
}

// Counts per distinct value, with the k-th smallest found in O(log V) (a Fenwick tree).
class CountTree {
 public:
  explicit CountTree(std::size_t n) : tree_(n + 1, 0) {
    while ((std::size_t{1} << (log_ + 1)) <= n) ++log_;
  }
  void add(std::size_t i, long d) {
    total_ += d;
    for (++i; i < tree_.size(); i += i & (~i + 1)) tree_[i] += d;
  }
  long total() const { return total_; }
  std::size_t kth(long k) const {  // 0-based: the index of the (k+1)-th smallest
    std::size_t pos = 0;
    for (int b = log_; b >= 0; --b) {
      const std::size_t next = pos + (std::size_t{1} << b);
      if (next < tree_.size() && tree_[next] <= k) {
        pos = next;
        k -= tree_[next];
      }
    }
    return pos;
  }

 private:
  std::vector<long> tree_;
  long total_ = 0;
  int log_ = 0;
};

// The same numbers by one sweep over time: each node's busy share is a step function (the
// interval busy_at finds at t), every step enters and leaves a count per distinct value once,
// and each interval's middle reads the median from the counts less its own node's value. O(M log
// M) for M intervals in all, so a rank count 8 times larger costs about 8 times more, not 64.
// Needs each node's intervals ordered by end (busy_at's binary search needs that too); nullopt
// otherwise.
std::optional<PeerStats> peer_stats_sweep(const std::vector<NodeTimeline>& nodes) {
  struct Step {
    double from, to, value;
  };
  std::vector<Step> steps;
  std::vector<double> values;
  for (const NodeTimeline& n : nodes) {
    double prev_end = -std::numeric_limits<double>::infinity();
    for (const LabelledInterval& li : n.intervals) {
      const Interval& iv = li.interval;
      if (!std::isfinite(iv.start) || !std::isfinite(iv.end) || iv.end < prev_end)
        return std::nullopt;
      const std::optional<double> b = gpu_busy_share(iv);
      if (b && std::isnan(*b)) return std::nullopt;
      const double from = std::max(prev_end, iv.start);
      if (b && from < iv.end) {
        steps.push_back({from, iv.end, *b});
        values.push_back(*b);
      }
      prev_end = iv.end;
    }
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  auto index_of = [&](double v) {
    return static_cast<std::size_t>(std::lower_bound(values.begin(), values.end(), v) -
                                    values.begin());
  };
  std::vector<std::pair<double, std::size_t>> enter, leave;  // (time, value index)
  enter.reserve(steps.size());
  leave.reserve(steps.size());
  for (const Step& s : steps) {
    enter.emplace_back(s.from, index_of(s.value));
    leave.emplace_back(s.to, index_of(s.value));
  }
  std::sort(enter.begin(), enter.end());
  std::sort(leave.begin(), leave.end());
  struct Query {
    double t;
    std::size_t node, k;
  };
  std::vector<Query> queries;
  PeerStats out(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    out[i].resize(nodes[i].intervals.size());
    for (std::size_t k = 0; k < nodes[i].intervals.size(); ++k) {
      const Interval& iv = nodes[i].intervals[k].interval;
      queries.push_back({(iv.start + iv.end) / 2, i, k});
    }
  }
  std::sort(queries.begin(), queries.end(),
            [](const Query& a, const Query& b) { return a.t < b.t; });
  CountTree counts(values.size());
  std::size_t e = 0, l = 0;
  for (const Query& q : queries) {
    // The steps that hold q.t: entered at or before it, not left at or before it.
    for (; e < enter.size() && enter[e].first <= q.t; ++e) counts.add(enter[e].second, 1);
    for (; l < leave.size() && leave[l].first <= q.t; ++l) counts.add(leave[l].second, -1);
    const std::optional<double> self = busy_at(nodes[q.node], q.t);
    if (self) counts.add(index_of(*self), -1);
    const long n = counts.total();
    std::optional<double> median;
    if (n > 0) {
      median = n % 2 == 1 ? values[counts.kth(n / 2)]
                          : (values[counts.kth(n / 2 - 1)] + values[counts.kth(n / 2)]) / 2;
    }
    out[q.node][q.k] = {median, static_cast<std::size_t>(n)};
    if (self) counts.add(index_of(*self), 1);
  }
  return out;
}

}  // namespace

void mark_stragglers(std::vector<NodeTimeline>& nodes, const Thresholds& t) {
  if (nodes.size() < 2) return;
  std::optional<PeerStats> peer = peer_stats_sweep(nodes);
  relabel(nodes, t, peer ? *peer : peer_stats_direct(nodes));
}

void mark_stragglers_direct(std::vector<NodeTimeline>& nodes, const Thresholds& t) {
  if (nodes.size() < 2) return;
  relabel(nodes, t, peer_stats_direct(nodes));
}

}  // namespace trainready::watch
