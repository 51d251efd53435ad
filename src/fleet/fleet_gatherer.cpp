#include "fleet/fleet_gatherer.h"

#include <set>

#include "codec/node_facts_wire.h"
#include "fleet/fleet_message.h"

namespace trainready {

FleetGatherer::FleetGatherer(int count, std::string root_version, int first)
    : ranks_(static_cast<std::size_t>(count)),
      facts_(static_cast<std::size_t>(count)),
      done_(static_cast<std::size_t>(count), false),
      root_version_(std::move(root_version)),
      first_(first) {
  for (int i = 0; i < count; ++i) ranks_[static_cast<std::size_t>(i)].rank = first + i;
}

void FleetGatherer::refuse(int rank, std::string detail, double t, std::size_t bytes) {
  if (rank < first_ || static_cast<std::size_t>(rank - first_) >= ranks_.size()) return;
  const auto i = static_cast<std::size_t>(rank - first_);
  if (done_[i]) return;
  ranks_[i].detail = std::move(detail);
  settle(i, FleetRankState::kUnreadable, t, bytes);
}

void FleetGatherer::accept(int source, std::string_view bytes, double t) {
  if (source < first_ || static_cast<std::size_t>(source - first_) >= ranks_.size()) return;
  const auto i = static_cast<std::size_t>(source - first_);
  if (done_[i]) return;  // a late duplicate changes nothing
  FleetRank& r = ranks_[i];
  auto settle = [&](FleetRankState s) { this->settle(i, s, t, bytes.size()); };
  RankMessage m;
  try {
    m = decode_rank_message(bytes);
  } catch (const WireError& e) {
    r.detail = e.what();
    settle(FleetRankState::kUnreadable);
    return;
  }
  if (!m.host.empty()) r.host = m.host;
  if (!m.tool_version.empty()) r.tool_version = m.tool_version;
  if (m.format != kFleetMessageFormat) {
    r.detail = "message format " + std::to_string(m.format) + ", this trainready reads format " +
               std::to_string(kFleetMessageFormat);
    settle(FleetRankState::kIncompatible);
    return;
  }
  if (m.rank != source) {
    r.detail = "the message says it comes from rank " + std::to_string(m.rank);
    settle(FleetRankState::kUnreadable);
    return;
  }
  r.pid = m.pid;
  switch (m.kind) {
    case RankMessageKind::kHello:
      if (r.hello_s < 0) r.hello_s = t;
      r.state = FleetRankState::kStalled;  // until its facts come
      return;
    case RankMessageKind::kFailed:
      r.detail = m.error;
      settle(FleetRankState::kFailed);
      return;
    case RankMessageKind::kFacts:
      if (m.facts) facts_[i] = std::make_unique<NodeFacts>(std::move(*m.facts));
      settle(FleetRankState::kOk);
      return;
  }
}

void FleetGatherer::settle(std::size_t i, FleetRankState s, double t, std::size_t bytes) {
  ranks_[i].state = s;
  ranks_[i].facts_s = t;
  ranks_[i].bytes = bytes;
  done_[i] = true;
  ++final_;
}

FleetGather FleetGatherer::finish(double gather_s, double timeout_s, const std::string& launcher) {
  FleetGather g;
  g.fleet.size = first_ + static_cast<int>(ranks_.size());
  g.fleet.launcher = launcher;
  g.fleet.root_version = root_version_;
  g.fleet.timeout_s = timeout_s;
  g.fleet.gather_s = gather_s;
  std::set<std::string> labels;
  for (std::size_t i = 0; i < ranks_.size(); ++i) {
    FleetRank r = ranks_[i];
    if (!done_[i] && r.hello_s < 0) r.state = FleetRankState::kSilent;
    if (facts_[i]) {
      NodeFacts n = std::move(*facts_[i]);
      // Ranks on one host (or snapshots of one) would be indistinguishable in the report.
      if (!labels.insert(n.label).second) {
        n.label += "#" + std::to_string(first_ + static_cast<int>(i));
        labels.insert(n.label);
      }
      r.node = static_cast<int>(g.nodes.size());
      g.nodes.push_back(std::move(n));
    }
    g.fleet.ranks.push_back(std::move(r));
  }
  return g;
}

}  // namespace trainready
