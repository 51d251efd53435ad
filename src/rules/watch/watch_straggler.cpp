// watch-straggler: replaying several nodes' recordings of one job together, a node whose GPUs
// idle while its peers' are busy in the same second is the one the job waits for (synchronous
// data-parallel training runs at the pace of its slowest rank). A hang stays a hang.
#include "rules/rule_factories.h"
#include "rules/watch/watch_rule.h"

namespace trainready {
namespace {

using namespace watch_text;

class WatchStraggler : public WatchRule {
 public:
  std::string_view id() const override { return "watch-straggler"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "A node idled while its peers worked (straggler)";
  }
  watch::Label label() const override { return watch::Label::kStraggler; }

  std::optional<std::string> judge(const watch::Window& w) const override {
    const watch::Thresholds& t = *w.t;
    if (!w.busy || w.peers == 0 || !w.peers_median_busy || w.alone_label == "hang")
      return std::nullopt;
    const double median = *w.peers_median_busy;
    if (median < t.gpu_busy || *w.busy >= t.straggler_ratio * median) return std::nullopt;
    char b[160];
    std::snprintf(b, sizeof b,
                  "GPU utilization %.0f %% while the peers' median is %.0f %% (%zu peers)",
                  *w.busy * 100, median * 100, w.peers);
    return std::string(b) + "; alone it read: " + std::string(w.alone_label) + " (" +
           std::string(w.alone_because) + ")";
  }

  // Replayed recordings carry the label per node; live under mpirun/srun, rank 0's board judged
  // the peers' interval summaries with the same test (mark_stragglers) and says who straggled.
  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome o = WatchRule::evaluate(ctx);
    const WatchFacts& w = *ctx.watch;
    if (!w.job) return o;
    for (const WatchJobRank& r : w.job->ranks) {
      if (r.straggler_intervals == 0) continue;
      Finding f =
          finding("straggler: " + std::to_string(r.straggler_intervals) + " of " +
                  std::to_string(r.judged_intervals) + " judged intervals, " +
                  format_duration(r.straggler_seconds) + " idle while its " +
                  std::to_string(r.peers) + (r.peers == 1 ? " peer" : " peers") + " worked");
      f.node = r.node;
      f.evidence.push_back({"rank 0's view of the job under " + w.job->launcher + " (" +
                                std::to_string(w.job->size) + " ranks, live interval summaries)",
                            {}});
      f.cause = cause();
      f.fix = fix();
      o.findings.push_back(std::move(f));
    }
    if (o.skipped && !o.findings.empty()) o.skipped = false;
    return o;
  }

  std::string explain(const watch::Thresholds& t, bool) const override {
    return "a node whose GPU utilization is below " + pct(t.straggler_ratio) +
           " of the median of its" + kMore +
           "peers' in the same second, while the peers are at >= " + pct(t.gpu_busy) +
           "; a hang stays a hang" + kMore +
           "(live under mpirun/srun, or watch --replay A.jsonl --replay B.jsonl ...)";
  }

 protected:
  std::string message(const WatchNodeFacts&, const WatchLabelShare& s) const override {
    return "straggler: " + watch_text::span(s) + " idle while its peers worked";
  }
  std::string cause() const override {
    return "This node's GPUs waited while the others computed: a slower GPU (clocks throttled, "
           "a degraded PCIe or NVLink link), its own storage or loader path, or a noisy "
           "neighbour. Every collective waits for it.";
  }
  std::string fix() const override {
    return "Run `trainready doctor` on the node (clocks, throttle reasons, links), compare its "
           "watch summary with a peer's, and drain it (`trainready fleet --drain`) if it stays "
           "slow.";
  }
};

}  // namespace

std::unique_ptr<Rule> make_watch_straggler() { return std::make_unique<WatchStraggler>(); }

}  // namespace trainready
