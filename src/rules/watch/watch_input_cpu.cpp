// watch-input-cpu: the data loader waits for a CPU: its threads sit on a run queue, ready to run
// and not running, a large share of the time they want one.
#include "rules/rule_factories.h"
#include "rules/watch/watch_rule.h"

namespace trainready {
namespace {

using namespace watch_text;

class WatchInputCpu : public WatchRule {
 public:
  std::string_view id() const override { return "watch-input-cpu"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "The GPUs waited on the data loader's CPU"; }
  watch::Label label() const override { return watch::Label::kInputCpu; }

  std::optional<std::string> judge(const watch::Window& w) const override {
    const watch::Interval& iv = *w.iv;
    if (!iv.proc_runq_wait_share || *iv.proc_runq_wait_share < w.t->runq_wait_share)
      return std::nullopt;
    if (w.busy)
      return "GPU utilization " + pct(*w.busy) + ", input processes wait for a CPU " +
             pct(*iv.proc_runq_wait_share) + " of the time they run";
    return "processes wait for a CPU " + pct(*iv.proc_runq_wait_share) + " of the time they run";
  }

  std::string explain(const watch::Thresholds& t, bool with_gpus) const override {
    return std::string(with_gpus ? "the watched processes wait on a run queue >= "
                                 : "run-queue wait >= ") +
           pct(t.runq_wait_share) + " of the time they want a CPU" + kMore +
           "(/proc/PID/task/*/schedstat: wait / (run + wait))";
  }

 protected:
  std::string message(const WatchNodeFacts& n, const WatchLabelShare& s) const override {
    if (n.gpu_busy_ratio)
      return pct(s.gpu_idle_share) + " of GPU time waiting on the input CPU, " + pct(s.time_share) +
             " of the time";
    return "waiting for a CPU " + pct(s.time_share) + " of the time";
  }
  std::string cause() const override {
    return "More runnable threads than cores: too many loader workers for the VM's vCPUs, "
           "decoding and augmentation on the CPU, or other processes on the node.";
  }
  std::string fix() const override {
    return "Match the loader's workers to the cores per GPU, move decoding to the GPU (NVIDIA "
           "DALI) or preprocess the dataset once, and keep other work off the training node.";
  }
};

}  // namespace

std::unique_ptr<Rule> make_watch_input_cpu() { return std::make_unique<WatchInputCpu>(); }

}  // namespace trainready
