// nccl-log-partial: the log holds only some of the ranks of a communicator.
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclLogPartial : public Rule {
 public:
  std::string_view id() const override { return "nccl-log-partial"; }
  Severity severity() const override { return Severity::kInfo; }
  std::string_view title() const override { return "The log holds only some of the ranks"; }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    if (f.comms.empty()) return RuleOutcome::skip("the log holds no communicator init lines");
    for (const auto& [k, s] : f.streams) {
      if (s.init_started && !s.init_complete) return {};  // nccl-init-incomplete tells this story
    }
    RuleOutcome o;
    for (const auto& [id, c] : f.comms) {
      const std::size_t seen = std::max(c.ranks_complete.size(), c.ranks_started.size());
      if (seen == 0 || seen >= static_cast<std::size_t>(c.nranks)) continue;
      Finding x = finding("Communicator " + c.id + " has " + std::to_string(c.nranks) +
                          " ranks; this log holds " + std::to_string(seen) +
                          " of them, so what the others did is not known");
      x.evidence.push_back({"first init line of the communicator", c.first_seen});
      x.cause =
          "Only some ranks' output was captured (one host's log, or a launcher that "
          "keeps rank 0's output only).";
      x.fix = "Give every rank's log (a directory of per-rank files works) to see all of the run.";
      x.rank = 1;
      o.findings.push_back(std::move(x));
    }
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_log_partial() { return std::make_unique<NcclLogPartial>(); }

}  // namespace trainready
