#pragma once
// Rank 0's side of the fleet gather, without MPI: it folds each rank's message into that rank's
// state and, at the end, turns what never came into findings' facts (silent, stalled). The MPI
// run (fleet_session.cpp) feeds it what arrives; the scale benchmark feeds it serialised facts.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "facts/fleet_facts.h"
#include "facts/node_facts.h"

namespace trainready {

struct FleetGather {
  FleetFacts fleet;
  std::vector<NodeFacts> nodes;  // the facts that arrived, in rank order (FleetRank::node)
};

class FleetGatherer {
 public:
  FleetGatherer(int size, std::string root_version);
  // One message from rank `source`, `t` seconds into the gather. Bytes that do not decode make
  // that rank's state unreadable; a message claiming another rank's number is refused the same.
  void accept(int source, std::string_view bytes, double t);
  // A leader's bundle (fleet_bundle.h) from `leader`, whose group is `group` consecutive ranks:
  // each message in it as if its rank had sent it. Entries for ranks outside the group are
  // ignored; a bundle that does not decode makes the leader unreadable (its group, unheard,
  // ends silent).
  void accept_bundle(int leader, int group, std::string_view bytes, double t);
  // Every rank has its final answer (facts, a failure, or bytes that could not be read).
  bool complete() const { return final_ == ranks_.size(); }
  std::size_t answered() const { return final_; }
  // The ranks and nodes; ranks without a final answer become silent or stalled.
  FleetGather finish(double gather_s, double timeout_s, const std::string& launcher);

 private:
  void settle(std::size_t i, FleetRankState s, double t, std::size_t bytes);  // a final answer
  std::vector<FleetRank> ranks_;
  std::vector<std::optional<NodeFacts>> facts_;
  std::vector<bool> done_;
  std::size_t final_ = 0;
  std::string root_version_;
};

}  // namespace trainready
