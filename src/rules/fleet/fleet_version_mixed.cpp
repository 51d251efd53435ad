// fleet-version-mixed: the ranks run different trainready versions. Facts from another version
// may be judged by rules that expect other fields; a message format rank 0 does not read leaves
// that node unchecked.
#include <map>

#include "rules/rule_factories.h"

namespace trainready {
namespace {

class FleetVersionMixed final : public Rule {
 public:
  std::string_view id() const override { return "fleet-version-mixed"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "The ranks run different trainready versions"; }
  RuleScope scope() const override { return RuleScope::kFleet; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const FleetFacts& fl = *ctx.fleet;
    std::map<std::string, int> count;  // version -> ranks
    for (const FleetRank& r : fl.ranks)
      if (!r.tool_version.empty()) ++count[r.tool_version];
    RuleOutcome out;
    if (count.empty()) return RuleOutcome::skip("no rank said which trainready it runs");
    std::string tally;
    for (const auto& [v, n] : count)
      tally += (tally.empty() ? "" : ", ") + std::to_string(n) + " on " + v;
    for (const FleetRank& r : fl.ranks) {
      const bool other = !r.tool_version.empty() && r.tool_version != fl.root_version;
      const bool unread = r.state == FleetRankState::kIncompatible;
      if (!other && !unread) continue;
      Finding f =
          finding("rank " + std::to_string(r.rank) + " runs trainready " +
                  (r.tool_version.empty() ? std::string("(unknown)") : r.tool_version) +
                  ", rank 0 runs " + fl.root_version +
                  (unread ? "; its facts could not be read (" + r.detail + ")" : std::string()));
      if (unread) f.severity = Severity::kError;  // that node is unchecked
      f.node = r.node >= 0 && ctx.cluster &&
                       static_cast<std::size_t>(r.node) < ctx.cluster->labels.size()
                   ? ctx.cluster->labels[static_cast<std::size_t>(r.node)]
                   : fleet_rank_label(r);
      f.evidence.push_back({"versions across the ranks: " + tally, {}});
      f.cause =
          "Each node runs the trainready it finds on its PATH (or in its container). A node "
          "with another version was built from another image or missed an update, so its probes "
          "may read different things, and a message format this rank 0 does not read leaves "
          "the node unchecked. A node that differs in its tools often differs in more.";
      f.fix =
          "Install one trainready version on every node (the same package or container image), "
          "or launch one copy from a shared file system.";
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_fleet_version_mixed() { return std::make_unique<FleetVersionMixed>(); }

}  // namespace trainready
