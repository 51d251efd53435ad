// fleet-rank-failed: a rank told rank 0 why it has no facts: its probes hung past
// --probe-timeout, crashed, exited, or its snapshot could not be read.
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class FleetRankFailed final : public Rule {
 public:
  std::string_view id() const override { return "fleet-rank-failed"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "A rank could not gather its node's facts"; }
  RuleScope scope() const override { return RuleScope::kFleet; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    for (const FleetRank& r : ctx.fleet->ranks) {
      if (r.state != FleetRankState::kFailed) continue;
      Finding f = finding("rank " + std::to_string(r.rank) + " has no facts: " + r.detail);
      f.node = fleet_rank_label(r);
      f.evidence.push_back({fleet_rank_evidence(r), {}});
      f.cause =
          "Each rank probes its node in a child process with a deadline, so a probe that hangs (a "
          "stuck NFS mount, a driver call that never returns) or crashes (a segfault in a vendor "
          "library) costs that node its facts, not the run. The node is unchecked.";
      f.fix =
          "Run `trainready doctor` on that host to see the probe fail in the open; a hang points "
          "at the device or mount the probe read last (strace -f). Drain the node until it passes.";
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_fleet_rank_failed() { return std::make_unique<FleetRankFailed>(); }

}  // namespace trainready
