// fleet-rank-stalled: a rank said hello (so it started, and rank 0 knows its host), then sent
// no facts before the deadline: it hangs, or its process died after starting.
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class FleetRankStalled final : public Rule {
 public:
  std::string_view id() const override { return "fleet-rank-stalled"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "A rank started but never sent its facts"; }
  RuleScope scope() const override { return RuleScope::kFleet; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    for (const FleetRank& r : ctx.fleet->ranks) {
      if (r.state != FleetRankState::kStalled) continue;
      Finding f = finding("rank " + std::to_string(r.rank) + " started (hello after " +
                          fleet_seconds(r.hello_s) + " s) but sent no facts within " +
                          fleet_seconds(ctx.fleet->timeout_s) + " s");
      f.node = fleet_rank_label(r);
      f.evidence.push_back({fleet_rank_evidence(r), {}});
      f.cause =
          "The rank hangs outside its probes (those have their own deadline and would have been "
          "reported as a failure), or its process died after it started. A process that hangs in "
          "MPI or in the kernel (D state: a stuck file system, a wedged device) looks like this.";
      f.fix =
          "On that host: look for the trainready process (ps -o stat,wchan -p PID), its kernel "
          "stack (/proc/PID/stack) and dmesg; drain the node until it runs a check to the end.";
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_fleet_rank_stalled() { return std::make_unique<FleetRankStalled>(); }

}  // namespace trainready
