#include "watch/timeline.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "watch/bucket_sort.h"
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

// Counts per distinct value (by index, in value order) and the k-th smallest, found by moving a
// cursor from the last answer. Consecutive questions of a sweep ask about nearly the same peers
// (a step or two entered or left, one node's own value taken out and put back), so the cursor
// moves over the few distinct values between one median and the next: O(1) per question for a
// window of fixed length, however many ranks (a Fenwick tree took O(log V) each).
class CountCursor {
 public:
  explicit CountCursor(std::size_t n) : counts_(n, 0) {}
  void add(std::size_t i, long d) {
    counts_[i] += d;
    total_ += d;
    if (i < at_) below_ += d;
  }
  long total() const { return total_; }
  std::size_t kth(long k) {  // 0-based: the index of the (k+1)-th smallest; 0 <= k < total()
    while (below_ > k) below_ -= counts_[--at_];
    while (below_ + counts_[at_] <= k) below_ += counts_[at_++];
    return at_;
  }

 private:
  std::vector<long> counts_;
  long total_ = 0;
  std::size_t at_ = 0;  // the cursor
  long below_ = 0;      // the sum of counts_ before the cursor
};

// The same numbers by one sweep over time: each node's busy share is a step function (the
// interval busy_at finds at t), every step enters and leaves a count per distinct value once,
// and each interval's middle reads the median from the counts less its own node's value. Every
// sort is a bucket sort (bucket_sort.h: times spread over the window, shares over [0, 1]) and
// the median a moving cursor, so it is linear in the number of intervals M: a rank count 8
// times larger costs 8 times more. Needs each node's intervals ordered by end (busy_at's binary
// search needs that too); nullopt otherwise.
std::optional<PeerStats> peer_stats_sweep(const std::vector<NodeTimeline>& nodes) {
  struct Step {
    double from, to, value;
    std::size_t node, k;  // the interval it comes from
  };
  std::vector<Step> steps;
  std::vector<std::vector<std::size_t>> index(nodes.size());  // value index per interval
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    double prev_end = -std::numeric_limits<double>::infinity();
    index[i].assign(nodes[i].intervals.size(), kNone);
    for (std::size_t k = 0; k < nodes[i].intervals.size(); ++k) {
      const Interval& iv = nodes[i].intervals[k].interval;
      if (!std::isfinite(iv.start) || !std::isfinite(iv.end) || iv.end < prev_end)
        return std::nullopt;
      const std::optional<double> b = gpu_busy_share(iv);
      if (b && !std::isfinite(*b)) return std::nullopt;
      const double from = std::max(prev_end, iv.start);
      if (b && from < iv.end) steps.push_back({from, iv.end, *b, i, k});
      prev_end = iv.end;
    }
  }
  // Distinct values in order, each step's (and so each interval's) index among them.
  bucket_sort(steps, [](const Step& s) { return s.value; });
  std::vector<double> values;
  for (const Step& s : steps) {
    if (values.empty() || values.back() != s.value) values.push_back(s.value);
    index[s.node][s.k] = values.size() - 1;
  }
  std::vector<std::pair<double, std::size_t>> enter, leave;  // (time, value index)
  enter.reserve(steps.size());
  leave.reserve(steps.size());
  for (const Step& s : steps) {
    enter.emplace_back(s.from, index[s.node][s.k]);
    leave.emplace_back(s.to, index[s.node][s.k]);
  }
  const auto time = [](const std::pair<double, std::size_t>& e) { return e.first; };
  bucket_sort(enter, time);
  bucket_sort(leave, time);
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
  bucket_sort(queries, [](const Query& q) { return q.t; });
  CountCursor counts(values.size());
  std::size_t e = 0, l = 0;
  for (const Query& q : queries) {
    // The steps that hold q.t: entered at or before it, not left at or before it.
    for (; e < enter.size() && enter[e].first <= q.t; ++e) counts.add(enter[e].second, 1);
    for (; l < leave.size() && leave[l].first <= q.t; ++l) counts.add(leave[l].second, -1);
    // Its own node's value at q.t: the interval busy_at finds (whose step holds q.t).
    const std::vector<LabelledInterval>& mine = nodes[q.node].intervals;
    const auto it =
        std::upper_bound(mine.begin(), mine.end(), q.t,
                         [](double v, const LabelledInterval& li) { return v < li.interval.end; });
    std::size_t self = kNone;
    if (it != mine.end() && it->interval.start <= q.t)
      self = index[q.node][static_cast<std::size_t>(it - mine.begin())];
    if (self != kNone) counts.add(self, -1);
    const long n = counts.total();
    std::optional<double> median;
    if (n > 0) {
      median = n % 2 == 1 ? values[counts.kth(n / 2)]
                          : (values[counts.kth(n / 2 - 1)] + values[counts.kth(n / 2)]) / 2;
    }
    out[q.node][q.k] = {median, static_cast<std::size_t>(n)};
    if (self != kNone) counts.add(self, 1);
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
