// watch-compute-bound: the GPUs are busy (or, without GPU counters, the watched processes are on
// a CPU): the job waits on nothing outside them. A note, not a problem: it is where a training
// job should spend its time.
#include "rules/rule_factories.h"
#include "rules/watch/watch_rule.h"
#include "watch/gpu_busy.h"

namespace trainready {
namespace {

using namespace watch_text;

class WatchComputeBound : public WatchRule {
 public:
  std::string_view id() const override { return "watch-compute-bound"; }
  Severity severity() const override { return Severity::kInfo; }
  std::string_view title() const override { return "The GPUs were busy computing"; }
  watch::Label label() const override { return watch::Label::kCompute; }

  std::optional<std::string> judge(const watch::Window& w) const override {
    const watch::Interval& iv = *w.iv;
    const watch::Thresholds& t = *w.t;
    if (w.busy) {
      // Kernels resident all the time on few SMs spin (an NCCL kernel waiting): not compute.
      if (*w.busy >= t.gpu_busy && !watch::gpus_spinning(iv, t))
        return "GPU utilization " + pct(*w.busy) + watch::gpu_activity_words(iv);
      return std::nullopt;
    }
    if (iv.proc_cpu_cores && *iv.proc_cpu_cores >= t.cpu_active_cores)
      return "processes on CPU " + format_number(*iv.proc_cpu_cores) + " cores";
    return std::nullopt;
  }

  std::string explain(const watch::Thresholds& t, bool with_gpus) const override {
    if (!with_gpus)
      return "the processes use >= " + format_number(t.cpu_active_cores) +
             " cores (schedstat run time, else utime + stime)" + kMore +
             "counters: /proc/PID/task/*/schedstat, /proc/PID/stat fields 14-15";
    return "mean GPU utilization >= " + pct(t.gpu_busy) +
           " (nvmlDeviceGetUtilizationRates; MLPerf Storage counts a GPU" + kMore +
           "fed at >= 90 % AU as fed), unless SM activity, where sampled, is < " +
           pct(t.sm_spinning) + kMore +
           "(kernels spinning on few SMs: trainready's heuristic from the DCGM guide's" + kMore +
           "\"N/5 blocks ... an activity of 0.2\"), or power is < " + pct(t.power_spinning) +
           " of the enforced" + kMore + "limit with tensor activity < " + pct(t.tensor_working) +
           " (hung NCCL jobs read 0.10-0.18 of the limit:" + kMore +
           "NVIDIA/nccl#968, #2213; docs/rules/watch-compute-bound.md)";
  }

 protected:
  std::string message(const WatchNodeFacts& n, const WatchLabelShare& s) const override {
    if (n.gpu_busy_ratio)
      return "compute-bound " + pct(s.time_share) + " of the time; the GPUs were busy " +
             pct(*n.gpu_busy_ratio) + " of the time overall";
    return "computing on the CPU " + pct(s.time_share) + " of the time" +
           (s.detail.empty() ? "" : " (" + s.detail + ")");
  }
  std::string cause() const override {
    return "The GPUs ran kernels (NVML counts a period busy when one or more kernels ran): no "
           "counter shows them waiting on the network, storage or the data loader then.";
  }
  std::string fix() const override {
    return "Nothing to fix on the node's paths. To go faster, look inside the kernels (mixed "
           "precision, fused kernels, Nsight Systems); NVML's utilization does not say how full "
           "the SMs were.";
  }
};

}  // namespace

std::unique_ptr<Rule> make_watch_compute_bound() { return std::make_unique<WatchComputeBound>(); }

}  // namespace trainready
