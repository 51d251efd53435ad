#pragma once
// Rank 0's side of the fleet gather, without MPI: it folds each rank's message into that rank's
// state and, at the end, turns what never came into findings' facts (silent, stalled). The MPI
// run (fleet_session.cpp) feeds it what arrives; the scale benchmark feeds it serialised facts.
// A group leader of the two-level gather gathers its group with one (`first`: its own rank).
#include <memory>
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
  // Ranks first .. first + count - 1 (a group leader gathers its group; rank 0 everyone).
  FleetGatherer(int count, std::string root_version, int first = 0);
  // One message from rank `source`, `t` seconds into the gather. Bytes that do not decode make
  // that rank's state unreadable; a message claiming another rank's number is refused the same.
  void accept(int source, std::string_view bytes, double t);
  // `rank`'s final answer is bytes that could not be read (a leader's judgement that does not
  // decode): unreadable, with `detail`.
  void refuse(int rank, std::string detail, double t, std::size_t bytes);
  // Every rank has its final answer (facts, a failure, or bytes that could not be read).
  bool complete() const { return final_ == ranks_.size(); }
  std::size_t answered() const { return final_; }
  // The ranks and nodes; ranks without a final answer become silent or stalled.
  FleetGather finish(double gather_s, double timeout_s, const std::string& launcher);

 private:
  void settle(std::size_t i, FleetRankState s, double t, std::size_t bytes);  // a final answer
  std::vector<FleetRank> ranks_;
  // A pointer per rank, not a NodeFacts (about 5 KiB): rank 0 of the two-level gather keeps one
  // of these for every rank of the fleet, and its leaders never send facts to it.
  std::vector<std::unique_ptr<NodeFacts>> facts_;
  std::vector<bool> done_;
  std::size_t final_ = 0;
  std::string root_version_;
  int first_ = 0;
};

}  // namespace trainready
