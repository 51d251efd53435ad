#pragma once
// Rank 0's side of the two-level gather when group leaders judge (docs/fleet.md, "Leaders
// judge"): it takes each group's judgement (fleet/group_judgement.h) and the leaders' hellos, and
// keeps only what the report needs: a row per rank, a label and a digest index per node, and
// the node rules' outcomes folded fleet-wide into distinct outcomes and distinct per-node patterns
// of them. Its memory grows with the distinct findings (and a few dozen bytes per node), not with
// the nodes' facts. Without MPI, like FleetGatherer: the MPI run and the benchmark feed it.
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/engine.h"
#include "fleet/fleet_gatherer.h"
#include "fleet/group_judgement.h"
#include "queries/node_digest.h"

namespace trainready {

struct JudgedFleet {
  FleetFacts fleet;
  ClusterNodes cluster;          // a label (made unique across the fleet) and digest per node
  JudgedNodes judged;            // their node rules' outcomes
  std::vector<NodeFacts> nodes;  // only when the leaders forwarded facts: every node's, labelled
};

class JudgedGatherer {
 public:
  // `size` ranks in groups of `group`; `node_rule_ids`: the node rules rank 0 would run, in
  // registry order (node_rule_ids() of its selection).
  JudgedGatherer(int size, int group, std::string root_version,
                 std::vector<std::string> node_rule_ids);
  // A leader's hello (it said hello to rank 0 itself): a leader whose judgement never comes is
  // then stalled, not silent.
  void accept_hello(int leader, std::string_view bytes, double t);
  // A leader's judgement of its group; bytes that do not decode, or a judgement of another
  // group, make the leader unreadable and its members silent.
  void accept_judgement(int leader, std::string_view bytes, double t);
  // Rank 0's own group, judged here.
  void add(GroupJudgement j);
  bool complete() const { return received_ == parts_.size(); }
  std::size_t groups() const { return parts_.size(); }
  JudgedFleet finish(double gather_s, double timeout_s, const std::string& launcher);

 private:
  struct Part {  // one group, its outcomes and digests already folded into the fleet's
    std::vector<FleetRank> ranks;
    std::vector<std::string> labels;
    std::vector<std::uint32_t> digest_of;
    std::vector<std::uint32_t> pattern_of;
    std::vector<std::string> facts;
  };
  int size_;
  int group_;
  FleetGatherer leaders_;  // the leaders' hellos and refusals, and every rank's fallback row
  std::vector<std::string> rule_ids_;
  std::vector<std::optional<Part>> parts_;
  std::size_t received_ = 0;
  ClusterNodesBuilder digests_;
  JudgedNodes judged_;
  std::unordered_map<std::string, std::uint32_t> outcome_ids_, pattern_ids_;
  std::string key_;
};

// The node rules a selection runs, in registry order.
std::vector<std::string> node_rule_ids(const RuleSelection& selection);

}  // namespace trainready
