// fleet-facts-unreadable: the bytes a rank sent are not a fleet message (or not one from that
// rank): corrupted on the way, or not sent by trainready.
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class FleetFactsUnreadable final : public Rule {
 public:
  std::string_view id() const override { return "fleet-facts-unreadable"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "A rank sent facts rank 0 cannot read"; }
  RuleScope scope() const override { return RuleScope::kFleet; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    for (const FleetRank& r : ctx.fleet->ranks) {
      if (r.state != FleetRankState::kUnreadable) continue;
      Finding f = finding("rank " + std::to_string(r.rank) + " sent " + std::to_string(r.bytes) +
                          " bytes rank 0 cannot read: " + r.detail);
      f.node = fleet_rank_label(r);
      f.evidence.push_back({fleet_rank_evidence(r), {}});
      f.cause =
          "The message does not decode as a trainready fleet message, so the node is unchecked. "
          "Memory or network corruption on that node, or another program in the same MPI job "
          "sending on the fleet's tags, would do this.";
      f.fix =
          "Run the check again; if the same node sends garbage twice, run `trainready doctor "
          "--json` there and look at the node's memory errors (dmesg, EDAC) before trusting it "
          "with a job.";
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_fleet_facts_unreadable() {
  return std::make_unique<FleetFactsUnreadable>();
}

}  // namespace trainready
