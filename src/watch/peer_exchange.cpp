#include "watch/peer_exchange.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "core/input_error.h"
#include "core/rank_faults.h"
#include "core/units.h"
#include "watch/bucket_sort.h"

namespace trainready::watch {
namespace {

// A host name is at most 255 bytes (POSIX HOST_NAME_MAX); anything longer is not a summary.
constexpr std::size_t kMaxHost = 255;

std::optional<Label> label_of_id(const std::string& id) {
  for (Label l : kAllLabels) {
    if (id == label_id(l)) return l;
  }
  return std::nullopt;
}

double number(const nlohmann::json& j, const char* key, double lo, double hi) {
  if (!j.contains(key) || !j[key].is_number())
    throw std::runtime_error(std::string("no number \"") + key + "\"");
  const double v = j[key].get<double>();
  if (!std::isfinite(v) || v < lo || v > hi)
    throw std::runtime_error(std::string("\"") + key + "\" out of range");
  return v;
}

std::optional<double> optional_number(const nlohmann::json& j, const char* key, double lo,
                                      double hi) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return number(j, key, lo, hi);
}

// A message from a peer: a JSON object of this trainready's message format.
nlohmann::json peer_message(std::string_view bytes) {
  nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw std::runtime_error("not a JSON object");
  if (!j.contains("format") || !j["format"].is_number_integer() ||
      j["format"].get<int>() != kPeerMessageFormat)
    throw std::runtime_error("message format is not " + std::to_string(kPeerMessageFormat) +
                             " (another trainready version?)");
  return j;
}

std::string host_of(const nlohmann::json& j) {
  if (!j.contains("host") || !j["host"].is_string() ||
      j["host"].get_ref<const std::string&>().size() > kMaxHost)
    throw std::runtime_error("no host name");
  return j["host"].get<std::string>();
}

std::string pct(double ratio) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f %%", ratio * 100);
  return b;
}

// Whether interval `li` covers the wall-clock moment t.
bool covers(const LabelledInterval& li, double t) {
  return li.interval.start <= t && t < li.interval.end;
}

// How many nodes have an interval that covers a moment, in O(log M) per question (asked once per
// straggler interval found): each node's intervals merged into disjoint spans, then (spans begun
// by t) - (spans ended by t).
class CoverCount {
 public:
  explicit CoverCount(const std::vector<NodeTimeline>& nodes) {
    std::vector<std::pair<double, double>> spans;
    for (const NodeTimeline& n : nodes) {
      spans.clear();
      for (const LabelledInterval& li : n.intervals)
        if (li.interval.start < li.interval.end)
          spans.emplace_back(li.interval.start, li.interval.end);
      std::sort(spans.begin(), spans.end());
      for (std::size_t i = 0; i < spans.size();) {
        double end = spans[i].second;
        std::size_t j = i + 1;
        for (; j < spans.size() && spans[j].first <= end; ++j) end = std::max(end, spans[j].second);
        starts_.push_back(spans[i].first);
        ends_.push_back(end);
        i = j;
      }
    }
    // Linear in the rank count: each node's own spans are few (its window), the whole by buckets.
    bucket_sort(starts_, [](double t) { return t; });
    bucket_sort(ends_, [](double t) { return t; });
  }
  int nodes_at(double t) const {
    const auto begun = std::upper_bound(starts_.begin(), starts_.end(), t) - starts_.begin();
    const auto ended = std::upper_bound(ends_.begin(), ends_.end(), t) - ends_.begin();
    return static_cast<int>(begun - ended);
  }

 private:
  std::vector<double> starts_, ends_;
};

}  // namespace

PeerInterval peer_interval_of(int rank, const std::string& host, const LabelledInterval& li) {
  PeerInterval p;
  p.rank = rank;
  p.host = host;
  p.start = li.interval.start;
  p.end = li.interval.end;
  p.seconds = li.interval.seconds;
  p.gpus = li.interval.gpus;
  p.gpu_busy = li.interval.gpu_busy;
  p.cpu_cores = li.interval.proc_cpu_cores;
  p.label = li.verdict.label;
  return p;
}

std::string encode_peer_interval(const PeerInterval& p) {
  nlohmann::json j = {{"format", kPeerMessageFormat},
                      {"rank", p.rank},
                      {"host", p.host},
                      {"start", p.start},
                      {"end", p.end},
                      {"seconds", p.seconds},
                      {"gpus", p.gpus},
                      {"label", label_id(p.label)}};
  j["gpu_busy"] = p.gpu_busy ? nlohmann::json(*p.gpu_busy) : nlohmann::json(nullptr);
  j["cpu_cores"] = p.cpu_cores ? nlohmann::json(*p.cpu_cores) : nlohmann::json(nullptr);
  return j.dump();
}

PeerInterval decode_peer_interval(std::string_view bytes) {
  const nlohmann::json j = peer_message(bytes);
  PeerInterval p;
  p.rank = static_cast<int>(number(j, "rank", 0, 1e9));
  p.host = host_of(j);
  p.start = number(j, "start", 0, 1e11);
  p.end = number(j, "end", p.start, 1e11);
  p.seconds = number(j, "seconds", 0, 1e9);
  p.gpus = static_cast<int>(number(j, "gpus", 0, 1e6));
  p.gpu_busy = optional_number(j, "gpu_busy", 0, 1);
  p.cpu_cores = optional_number(j, "cpu_cores", 0, 1e7);
  if (!j.contains("label") || !j["label"].is_string())
    throw std::runtime_error("no interval label");
  const auto l = label_of_id(j["label"].get<std::string>());
  if (!l) throw std::runtime_error("unknown interval label");
  p.label = *l;
  if (!(p.end > p.start)) throw std::runtime_error("the interval ends before it starts");
  return p;
}

std::string encode_peer_hello(int rank, const std::string& host) {
  return nlohmann::json{{"format", kPeerMessageFormat}, {"rank", rank}, {"host", host}}.dump();
}

std::string decode_peer_hello(std::string_view bytes, int rank) {
  const nlohmann::json j = peer_message(bytes);
  if (static_cast<int>(number(j, "rank", 0, 1e9)) != rank)
    throw std::runtime_error("the message says it comes from another rank");
  return host_of(j);
}

PeerBoard::PeerBoard(int size, Thresholds t, double timeout_s, std::size_t window, double now)
    : ranks_(static_cast<std::size_t>(std::max(size, 1))),
      t_(t),
      timeout_s_(timeout_s),
      window_(std::max<std::size_t>(window, 2)) {
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    ranks_[i].rank = static_cast<int>(i);
    ranks_[i].last_heard = now;
  }
}

std::string PeerBoard::node_name(int r) const {
  const PeerRank& pr = rank(r);
  if (pr.host.empty()) return "rank " + std::to_string(r);
  return pr.host + " (rank " + std::to_string(r) + ")";
}

void PeerBoard::hello(int rank, const std::string& host, double now) {
  if (rank < 0 || rank >= size()) return;
  PeerRank& r = ranks_[static_cast<std::size_t>(rank)];
  r.said_hello = true;
  r.last_heard = now;
  if (r.host.empty()) r.host = host;
}

bool PeerBoard::all_said_hello() const {
  return std::all_of(ranks_.begin() + 1, ranks_.end(),
                     [](const PeerRank& r) { return r.said_hello; });
}

void PeerBoard::finished(int rank, double now) {
  if (rank < 0 || rank >= size()) return;
  PeerRank& r = ranks_[static_cast<std::size_t>(rank)];
  r.last_heard = now;
  r.state = PeerState::kDone;
}

bool PeerBoard::all_answering() const {
  return std::none_of(ranks_.begin() + 1, ranks_.end(), [](const PeerRank& r) {
    return r.state == PeerState::kSilent || r.state == PeerState::kWaiting;
  });
}

void PeerBoard::accept(const PeerInterval& p, double now) {
  if (p.rank < 0 || p.rank >= size()) return;
  PeerRank& r = ranks_[static_cast<std::size_t>(p.rank)];
  r.last_heard = now;
  if (r.state != PeerState::kDone) r.state = PeerState::kOk;
  r.host = p.host;
  ++r.intervals;
  // Time order is what the straggler rule searches by; a rank whose clock stepped back starts
  // its window over rather than break that order.
  if (!r.window.empty() && p.end <= r.window.back().end) {
    r.window.clear();
    r.unjudged = 0;
  }
  r.window.push_back(p);
  ++r.unjudged;
  while (r.window.size() > window_) {
    r.window.pop_front();
    r.unjudged = std::min(r.unjudged, r.window.size());
  }
}

void PeerBoard::unreadable(int rank, const std::string& why) {
  if (rank < 0 || rank >= size()) return;
  PeerRank& r = ranks_[static_cast<std::size_t>(rank)];
  // Not a summary, so not an answer (last_heard stays): a rank that sends only these goes
  // silent in time.
  ++r.unreadable;
  r.last_error = why;
}

std::vector<int> PeerBoard::update_silence(double now) {
  std::vector<int> out;
  for (PeerRank& r : ranks_) {
    if (r.rank == 0 || r.state == PeerState::kSilent || r.state == PeerState::kDone) continue;
    if (now - r.last_heard > timeout_s_) {
      r.state = PeerState::kSilent;
      r.went_silent = true;
      out.push_back(r.rank);
    }
  }
  return out;
}

std::vector<StragglerEvent> PeerBoard::judge(bool final) {
  // The moment up to which every answering rank has reported: an interval is judged once its
  // middle is covered, so a peer one interval behind is waited for, a silent one is not.
  double horizon = std::numeric_limits<double>::infinity();
  for (const PeerRank& r : ranks_) {
    if (r.state == PeerState::kWaiting && !final) return {};
    if (r.state == PeerState::kOk && !r.window.empty())
      horizon = std::min(horizon, r.window.back().end);
  }
  // GPUs wherever there is data: their busy share; otherwise (a CPU job, or a node without a
  // driver) the processes' CPU activity, as a share of the cores that count as computing.
  bool by_gpu = true;
  for (const PeerRank& r : ranks_) {
    if (!r.window.empty() && (r.window.back().gpus == 0 || !r.window.back().gpu_busy))
      by_gpu = false;
  }
  std::vector<NodeTimeline> nodes;
  std::vector<int> rank_of;
  for (const PeerRank& r : ranks_) {
    if (r.window.empty()) continue;
    NodeTimeline n;
    n.node = node_name(r.rank);
    for (const PeerInterval& p : r.window) {
      LabelledInterval li;
      li.interval.start = p.start;
      li.interval.end = p.end;
      li.interval.seconds = p.seconds;
      li.interval.gpus = p.gpus;
      if (by_gpu) {
        li.interval.gpu_busy = p.gpu_busy;
      } else if (p.cpu_cores) {
        li.interval.gpu_busy = std::min(1.0, *p.cpu_cores / t_.cpu_active_cores);
      }
      li.verdict.label = p.label;
      n.intervals.push_back(std::move(li));
    }
    nodes.push_back(std::move(n));
    rank_of.push_back(r.rank);
  }
  if (nodes.size() < 2) {
    for (PeerRank& r : ranks_) {
      if (final) {
        r.judged += static_cast<int>(r.unjudged);
        r.unjudged = 0;
      }
    }
    return {};
  }
  mark_stragglers(nodes, t_);
  const CoverCount cover(nodes);
  std::vector<StragglerEvent> out;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    PeerRank& r = ranks_[static_cast<std::size_t>(rank_of[k])];
    const std::size_t first = r.window.size() - r.unjudged;
    std::size_t done = 0;
    for (std::size_t i = first; i < r.window.size(); ++i) {
      const LabelledInterval& li = nodes[k].intervals[i];
      const double mid = (li.interval.start + li.interval.end) / 2;
      if (!final && mid > horizon) break;
      ++done;
      ++r.judged;
      if (li.verdict.label != Label::kStraggler) continue;
      StragglerEvent e;
      e.rank = r.rank;
      e.node = nodes[k].node;
      e.start = li.interval.start;
      e.end = li.interval.end;
      const bool self = std::any_of(nodes[k].intervals.begin(), nodes[k].intervals.end(),
                                    [&](const LabelledInterval& o) { return covers(o, mid); });
      e.peers = cover.nodes_at(mid) - (self ? 1 : 0);
      e.by_gpu = by_gpu;
      const PeerInterval& p = r.window[i];
      e.value = by_gpu ? p.gpu_busy.value_or(0) : p.cpu_cores.value_or(0);
      ++r.straggler_intervals;
      r.straggler_seconds += li.interval.end - li.interval.start;
      r.most_peers = std::max(r.most_peers, e.peers);
      out.push_back(std::move(e));
    }
    r.unjudged -= done;
  }
  return out;
}

std::string straggler_line(const StragglerEvent& e) {
  return "node " + e.node + " idle while its " + std::to_string(e.peers) +
         (e.peers == 1 ? " peer works (" : " peers work (") +
         (e.by_gpu ? "GPU busy " + pct(e.value)
                   : "its processes on CPU " + format_number(e.value) + " cores") +
         ")";
}

std::string PeerBoard::text(const std::string& launcher) const {
  int answering = 0;
  for (const PeerRank& r : ranks_) answering += r.intervals > 0 ? 1 : 0;
  std::string s = "Job (" + launcher + ", " + std::to_string(size()) +
                  " ranks): " + std::to_string(answering) + " sent interval summaries\n";
  bool any = false;
  for (const PeerRank& r : ranks_) {
    if (r.straggler_intervals == 0) continue;
    any = true;
    s += "Straggler: node " + node_name(r.rank) + " idle while its " +
         std::to_string(r.most_peers) + " peer" + (r.most_peers == 1 ? "" : "s") +
         " work: " + std::to_string(r.straggler_intervals) + " of " + std::to_string(r.judged) +
         " intervals, " + format_duration(r.straggler_seconds) + "\n";
  }
  if (!any) s += "No straggler: no node was idle while its peers worked\n";
  for (const PeerRank& r : ranks_) {
    if (r.intervals == 0)
      s += "Silent: " + node_name(r.rank) +
           " never sent an interval summary; left out of the comparison\n";
    else if (r.went_silent)
      s += "Silent: rank " + std::to_string(r.rank) + " (" + r.host + ") stopped answering after " +
           std::to_string(r.intervals) +
           " interval summaries; left out of the comparison while it was silent\n";
    if (r.unreadable > 0)
      s += "Unreadable: rank " + std::to_string(r.rank) + " sent " + std::to_string(r.unreadable) +
           " message(s) that are not interval summaries (" + r.last_error + ")\n";
  }
  return s;
}

WatchJobFacts PeerBoard::facts(const std::string& launcher) const {
  WatchJobFacts f;
  f.launcher = launcher;
  f.size = size();
  f.text = text(launcher);
  for (const PeerRank& r : ranks_) {
    WatchJobRank x;
    x.rank = r.rank;
    x.host = r.host;
    x.node = node_name(r.rank);
    x.state = r.intervals == 0 ? "never_answered" : r.went_silent ? "silent" : "ok";
    x.intervals = r.intervals;
    x.judged_intervals = r.judged;
    x.straggler_intervals = r.straggler_intervals;
    x.straggler_seconds = r.straggler_seconds;
    x.peers = r.most_peers;
    x.unreadable_messages = r.unreadable;
    f.ranks.push_back(std::move(x));
  }
  return f;
}

std::map<int, PeerFault> parse_peer_faults(const std::string& spec) {
  static const std::map<std::string, PeerFault> kKinds = {
      {"silent", PeerFault::kSilent}, {"hang", PeerFault::kHang}, {"garbage", PeerFault::kGarbage}};
  return parse_rank_faults(spec, kKinds, kWatchFaultEnv);
}

PeerFault peer_fault_for(int rank) {
  const char* env = std::getenv(kWatchFaultEnv);
  if (env == nullptr || *env == '\0') return PeerFault::kNone;
  const auto faults = parse_peer_faults(env);
  auto it = faults.find(rank);
  return it == faults.end() ? PeerFault::kNone : it->second;
}

std::string expand_rank_placeholders(std::string path, int rank, const std::string& host) {
  auto replace = [&](const std::string& key, const std::string& value) {
    for (std::size_t at = path.find(key); at != std::string::npos;
         at = path.find(key, at + value.size()))
      path.replace(at, key.size(), value);
  };
  replace("{rank}", std::to_string(rank));
  replace("{host}", host);
  return path;
}

}  // namespace trainready::watch
