// watch-communication-bound: the GPUs wait on the network. NCCL kernels count as "busy" in
// NVML's utilization (it only says a kernel ran), so an all-reduce at line rate reads 100 %: the
// network at its ceiling decides whatever the GPUs read; below the ceiling, only GPUs that are
// not busy are waiting on it. Without GPU counters, the bytes on the network decide: an MPI rank
// polls while it waits, so its CPU time cannot tell compute from communication.
#include "rules/rule_factories.h"
#include "rules/watch/watch_rule.h"
#include "watch/gpu_busy.h"

namespace trainready {
namespace {

using namespace watch_text;

class WatchCommunicationBound : public WatchRule {
 public:
  std::string_view id() const override { return "watch-communication-bound"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "The GPUs waited on the network"; }
  watch::Label label() const override { return watch::Label::kCommunication; }

  std::optional<std::string> judge(const watch::Window& w) const override {
    const watch::Interval& iv = *w.iv;
    const watch::Thresholds& t = *w.t;
    if (!w.busy) {
      const auto& net = w.net_bytes_per_s;
      if (net && *net >= t.storage_active_bytes_per_s && *net >= w.storage_bytes_per_s.value_or(0))
        return "network " + format_rate_si(*net) +
               (iv.proc_cpu_cores
                    ? ", processes on CPU " + format_number(*iv.proc_cpu_cores) + " cores"
                    : "");
      return std::nullopt;
    }
    // On a node with InfiniBand the GPUs talk over it; the front-end NIC carries storage (Blob
    // through blobfuse, NFS, Azure Managed Lustre). Without InfiniBand the NIC is both.
    const bool has_ib = iv.ib_ports > 0;
    const auto util = has_ib ? iv.ib_peak_port_util : w.net_peak_util;
    if (!util) return std::nullopt;
    const bool saturated = *util >= t.net_saturated;
    // GPUs below the busy line, or spinning (kernels on few SMs), wait on a network this busy.
    const bool waiting =
        (*w.busy < t.gpu_busy || watch::gpus_spinning(iv, t)) && *util >= t.net_active;
    if (!saturated && !waiting) return std::nullopt;
    return "GPU utilization " + pct(*w.busy) +
           (watch::gpus_spinning(iv, t) ? watch::gpu_activity_words(iv) : "") + ", " +
           (has_ib ? "InfiniBand" : "network") + " at " + pct(*util) + " of line rate";
  }

  std::string explain(const watch::Thresholds& t, bool with_gpus) const override {
    if (!with_gpus)
      return "network >= " + binary_rate(t.storage_active_bytes_per_s) +
             " and at least the storage read rate. An MPI rank polls while it" + kMore +
             "waits, so its CPU time cannot tell compute from communication; the bytes on" + kMore +
             "the network the job uses can. Ranks on one node talk over shared memory" + kMore +
             "(no counter sees it) unless told to use lo: name it with --net lo." + kMore +
             "counters: /proc/net/dev (rx_bytes + tx_bytes), InfiniBand port_{xmit,rcv}_data";
    return "the busiest InfiniBand port or counted NIC carries >= " + pct(t.net_saturated) +
           " of its line rate (max(rx, tx) / rate)," + kMore +
           "whatever NVML's utilization says: NCCL kernels count as busy, so an" + kMore +
           "all-reduce at line rate reads 100 %; or mean GPU utilization below " + pct(t.gpu_busy) +
           kMore + "(or GPUs spinning: SM activity < " + pct(t.sm_spinning) + ", or power < " +
           pct(t.power_spinning) + " of the limit" + kMore +
           "without tensor activity) and the network >= " + pct(t.net_active) + " of line rate." +
           kMore + "counters: ports/*/counters/port_{xmit,rcv}_data x 4 bytes, ports/*/rate;" +
           kMore + "/proc/net/dev, /sys/class/net/*/speed";
  }

 protected:
  std::string message(const WatchNodeFacts& n, const WatchLabelShare& s) const override {
    if (n.gpu_busy_ratio)
      return pct(s.gpu_idle_share) + " of GPU time waiting on the network, communication-bound " +
             pct(s.time_share) + " of the time" + (s.detail.empty() ? "" : " (" + s.detail + ")");
    return "communicating " + pct(s.time_share) + " of the time" +
           (s.detail.empty() ? "" : " (" + s.detail + ")");
  }
  std::string cause() const override {
    return "The interconnect was at or near its line rate while the GPUs waited: the collectives "
           "(all-reduce, all-gather) take as long as the bytes need on the wire. A port slower "
           "than the others, congestion (port_xmit_wait rising) or NCCL not on InfiniBand (TCP on "
           "the front-end NIC) make it worse.";
  }
  std::string fix() const override {
    return "Check that NCCL uses InfiniBand with GPUDirect RDMA (`trainready nccl` on the job's "
           "NCCL_DEBUG=INFO log, `trainready doctor` on the node), that every port is ACTIVE at "
           "full rate, and overlap communication with compute (gradient bucketing, larger "
           "micro-batches).";
  }
};

}  // namespace

std::unique_ptr<Rule> make_watch_communication_bound() {
  return std::make_unique<WatchCommunicationBound>();
}

}  // namespace trainready
