// fleet-rank-silent: a rank sent nothing before the deadline, not even the hello it sends as
// soon as MPI starts: its process never started, exited, or hangs before MPI.
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class FleetRankSilent final : public Rule {
 public:
  std::string_view id() const override { return "fleet-rank-silent"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "A rank never answered"; }
  RuleScope scope() const override { return RuleScope::kFleet; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    for (const FleetRank& r : ctx.fleet->ranks) {
      if (r.state != FleetRankState::kSilent) continue;
      Finding f = finding("rank " + std::to_string(r.rank) + " sent nothing within " +
                          fleet_seconds(ctx.fleet->timeout_s) + " s, not even its start-up hello");
      f.node = fleet_rank_label(r);
      f.evidence.push_back({fleet_rank_evidence(r), {}});
      f.cause =
          "The rank's process never reached MPI (a node that did not boot the job, a launcher that "
          "could not start it there), exited, or is stopped. Its node is unchecked, and a training "
          "job on it would hang at its first collective.";
      f.fix =
          "Look at the launcher's own output for that rank (mpirun/srun name the host of a process "
          "that failed), log in to the node, and drain it until it answers.";
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_fleet_rank_silent() { return std::make_unique<FleetRankSilent>(); }

}  // namespace trainready
