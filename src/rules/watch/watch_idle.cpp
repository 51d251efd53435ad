// watch-idle: the last rule asked: the GPUs (or processes) wait and no counter says on what, or
// there is too little activity, not yet long enough quiet to be a hang.
#include "rules/rule_factories.h"
#include "rules/watch/watch_rule.h"
#include "watch/gpu_busy.h"

namespace trainready {
namespace {

using namespace watch_text;

class WatchIdle : public WatchRule {
 public:
  std::string_view id() const override { return "watch-idle"; }
  Severity severity() const override { return Severity::kInfo; }
  std::string_view title() const override {
    return "The GPUs idled with no cause the counters show";
  }
  watch::Label label() const override { return watch::Label::kIdle; }

  std::optional<std::string> judge(const watch::Window& w) const override {
    if (w.busy) {
      const watch::Interval& iv = *w.iv;
      std::string s = "GPU utilization " + pct(*w.busy);
      if (watch::gpus_spinning(iv, *w.t))
        s += watch::gpu_activity_words(iv) + " (kernels spinning, not computing)";
      if (iv.ib_ports > 0 && iv.net_tx_peak_util && *iv.net_tx_peak_util >= w.t->net_active)
        s += ", front-end NIC sending at " + pct(*iv.net_tx_peak_util) +
             " of line rate (checkpoint/egress)";
      return s + ", no counter shows the path it waits on";
    }
    return std::string("little CPU, network or storage activity");
  }

  std::string explain(const watch::Thresholds&, bool with_gpus) const override {
    if (!with_gpus) return "processes alive, little activity, not yet long enough for hang";
    return "none of the above: the GPUs wait and no counter says on what";
  }

 protected:
  std::string message(const WatchNodeFacts& n, const WatchLabelShare& s) const override {
    if (n.gpu_busy_ratio)
      return pct(s.time_share) + " of the time idle with no cause the counters show";
    return "idle " + pct(s.time_share) + " of the time";
  }
  std::string cause() const override {
    return "The GPUs were not busy and neither the network, storage nor the loader's CPU was at "
           "a threshold: the job between steps (checkpointing to a path not watched, "
           "evaluation, start-up), host-side Python, a path watch does not judge against a "
           "line rate (NVLink: counted as movement, never as communication-bound), an interface "
           "left out with --net, or GPU kernels spinning (SM activity < 0.3, or power < 0.25 of "
           "the limit without tensor activity) while they wait; with no watched process, an idle "
           "node.";
  }
  std::string fix() const override {
    return "Watch with --pid on the training processes (and their loaders) so their I/O and "
           "CPU count; profile the step (PyTorch profiler, Nsight Systems) for host-side gaps.";
  }
};

}  // namespace

std::unique_ptr<Rule> make_watch_idle() { return std::make_unique<WatchIdle>(); }

}  // namespace trainready
