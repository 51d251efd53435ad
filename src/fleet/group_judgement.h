#pragma once
// What a group leader of the two-level gather sends rank 0 (docs/fleet.md, "Two-level gather"):
// not its members' facts but its judgement of them. Each member's rank state; per member with
// facts its label, what the cluster rules compare (facts/node_digest.h) and the outcome of
// every node rule, both as indices into the group's distinct digests, outcomes and patterns of
// outcomes; and, only when the report prints facts (JSON, Prometheus), the members' facts
// messages as received. A uniform group of 64 is a few KiB instead of 64 facts messages.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "engine/engine.h"
#include "facts/fleet_facts.h"
#include "facts/node_digest.h"
#include "fleet/fleet_gatherer.h"

namespace trainready {

struct GroupJudgement {
  std::string tool_version;      // the leader's
  int first = 0;                 // ranks first .. first + ranks.size() - 1
  std::vector<FleetRank> ranks;  // FleetRank::node: index into nodes.labels, -1 without facts
  ClusterNodes nodes;            // labels and distinct digests of the members with facts
  std::vector<std::uint32_t> pattern_of;             // per node, into patterns
  std::vector<std::string> rule_ids;                 // the node rules run, in registry order
  std::vector<RuleOutcome> outcomes;                 // distinct
  std::vector<std::vector<std::uint32_t>> patterns;  // distinct: an outcome per rule_ids entry
  std::vector<std::string> facts;  // empty, or per node its facts message as received
};

// How every rank judges: the same flags on every rank, so the same catalog and rule selection.
struct JudgeSetup {
  const Catalog* catalog = nullptr;
  RuleSelection selection;
  RunOptions options;
  bool forward_facts = false;  // the report prints every node's facts
};

// A leader's judgement of its group's gather (FleetGatherer over the group's ranks); `facts`:
// the facts messages of g.nodes, in order, kept only when setup.forward_facts.
GroupJudgement judge_group(int first, FleetGather g, std::vector<std::string> facts,
                           const JudgeSetup& setup, const std::string& tool_version);

// "TRFJ", format, then the fields above (codec/byte_wire.h). Decoding checks every index and
// count and throws WireError (codec/node_facts_wire.h) naming what is wrong.
std::string encode_group_judgement(const GroupJudgement& j);
GroupJudgement decode_group_judgement(std::string_view bytes);
// A rule outcome's bytes in that format: equal bytes, equal outcomes (rank 0 folds by them).
void encode_rule_outcome(std::string& out, const RuleOutcome& o);

}  // namespace trainready
