// watch-hang: nothing moves while the job's processes live. With GPU counters, NVML's
// utilization cannot tell a hang from work once the job has used its data path (InfiniBand, the
// NIC without it, or NVLink: a rank spinning in a collective that never completes reads ~100 %),
// so quiet bytes decide then, and SM activity and power where they are sampled (spinning reads
// below 0.3 SM activity, or below 0.25 of the power limit without tensor activity); before, the
// GPUs must be quiet or spinning. NVLink bytes are movement. A network at its line rate is
// not quiet, whatever the byte window says. No watched process: never a hang (idle).
#include "rules/rule_factories.h"
#include "rules/watch/watch_rule.h"
#include "watch/gpu_busy.h"

namespace trainready {
namespace {

using namespace watch_text;

class WatchHang : public WatchRule {
 public:
  std::string_view id() const override { return "watch-hang"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "The job hung: nothing moved while it lived"; }
  watch::Label label() const override { return watch::Label::kHang; }

  std::optional<std::string> judge(const watch::Window& w) const override {
    const watch::Interval& iv = *w.iv;
    const watch::Thresholds& t = *w.t;
    if (w.quiet_for < t.hang_after_s) return std::nullopt;
    if (!w.busy) {
      if (iv.procs == 0) return std::nullopt;
      return "processes alive, no CPU, network or storage activity for " +
             format_duration(w.quiet_for);
    }
    if (iv.procs == 0) return std::nullopt;  // nothing watched lives: idle, not a hung job
    const auto util = iv.ib_ports > 0 ? iv.ib_peak_port_util : w.net_peak_util;
    if (util && *util >= t.net_saturated) return std::nullopt;
    // Busy GPUs are work until the job has used its data path, unless their kernels spin;
    // SM activity, where sampled, shows real work whatever the network did.
    if (*w.busy > t.gpu_quiet && !w.network_seen && !watch::gpus_spinning(iv, t))
      return std::nullopt;
    if (watch::gpus_working(iv, t)) return std::nullopt;
    return "GPU utilization " + pct(*w.busy) + watch::gpu_activity_words(iv) +
           ", network, NVLink and storage quiet for " + format_duration(w.quiet_for);
  }

  std::string explain(const watch::Thresholds& t, bool with_gpus) const override {
    if (!with_gpus)
      return "processes alive, all of the above quiet for >= " + format_duration(t.hang_after_s) +
             " (--hang-after)" + kMore +
             "counters: /proc/PID/stat (alive), schedstat, /proc/net/dev, /proc/diskstats";
    return "network, NVLink and storage below " + binary_rate(t.quiet_bytes_per_s) +
           " for >= " + format_duration(t.hang_after_s) +
           " (--hang-after) while watched processes live," + kMore +
           "with GPU utilization <= " + pct(t.gpu_quiet) + " or spinning (>= " + pct(t.gpu_busy) +
           " on SM activity < " + pct(t.sm_spinning) + "," + kMore + "or on power < " +
           pct(t.power_spinning) + " of the enforced limit with tensor activity < " +
           pct(t.tensor_working) + "), or at any utilization" + kMore +
           "once the job has used InfiniBand (the NIC without it) or NVLink, unless SM" + kMore +
           "activity >= " + pct(t.sm_spinning) + " or power >= " + pct(t.power_spinning) +
           " shows work, where sampled" + kMore +
           "(a rank spinning in a collective that never completes);" + kMore +
           "a network at >= " + pct(t.net_saturated) +
           " of line rate is not quiet; no watched process: idle." + kMore +
           "counters: the network, NVLink, storage and GPU counters above;" + kMore +
           "nvmlDeviceGetPowerUsage / nvmlDeviceGetEnforcedPowerLimit (mW); /proc/PID/stat";
  }

 protected:
  std::string message(const WatchNodeFacts&, const WatchLabelShare& s) const override {
    return "hung for " + format_duration(s.seconds) + " (" + pct(s.time_share) +
           " of the time): the processes lived, nothing moved";
  }
  std::string cause() const override {
    return "A rank waits on a collective a peer never joins (a crashed or stuck rank, a "
           "deadlock in the training code, a lost InfiniBand link), or every rank waits on "
           "something outside the job (a hung network file system).";
  }
  std::string fix() const override {
    return "Look at the job's NCCL_DEBUG=INFO log (`trainready nccl LOG` names a watchdog "
           "timeout and the rank), run `trainready doctor` on the node, and take a stack of the "
           "ranks (py-spy dump, gdb) before killing them.";
  }
};

}  // namespace

std::unique_ptr<Rule> make_watch_hang() { return std::make_unique<WatchHang>(); }

}  // namespace trainready
