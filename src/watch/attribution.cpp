#include "watch/attribution.h"

#include <cstdio>

#include "core/units.h"
#include "watch/gpu_busy.h"

namespace trainready::watch {

Verdict Attributor::label(const Interval& iv) {
  Window w;
  w.iv = &iv;
  w.t = &t_;
  w.busy = gpu_busy_share(iv);
  w.net_bytes_per_s = network_bytes_per_s(iv);
  w.storage_bytes_per_s = storage_read_bytes_per_s(iv);
  w.net_peak_util = network_peak_util(iv);
  w.nvlink_bytes_per_s = nvlink_bytes_per_s(iv);
  const auto& net = w.net_bytes_per_s;
  const auto& storage = w.storage_bytes_per_s;
  const auto& nvlink = w.nvlink_bytes_per_s;
  // Only the job's own data path (not a front-end NIC downloading a model or writing a
  // checkpoint) makes a busy GPU suspect of spinning in a collective.
  if (const auto path = data_path_bytes_per_s(iv); path && *path >= t_.quiet_bytes_per_s)
    network_seen_ = true;
  // Something moves: bytes on the network, NVLink or from storage; the GPUs, unless their kernels
  // spin (>= 90 % utilization on < 0.3 SM activity, or < 0.25 of the power limit without tensor
  // activity, where sampled) or, once the job has used its data path, unless SM activity or power
  // (where sampled) shows real work: without them a kernel spinning in a collective reads busy;
  // or, without GPU counters, the processes on a CPU.
  const bool gpus_moving = w.busy && *w.busy >= t_.gpu_quiet && !gpus_spinning(iv, t_) &&
                           (!network_seen_ || gpus_working(iv, t_));
  const bool moving = (net && *net >= t_.quiet_bytes_per_s) ||
                      (nvlink && *nvlink >= t_.quiet_bytes_per_s) ||
                      (storage && *storage >= t_.quiet_bytes_per_s) || gpus_moving ||
                      (!w.busy && iv.proc_cpu_cores && *iv.proc_cpu_cores >= t_.cpu_active_cores);
  quiet_seconds_ = moving ? 0 : quiet_seconds_ + iv.seconds;
  w.quiet_for = quiet_seconds_;
  w.network_seen = network_seen_;
  const Precedence& p = watch_precedence();
  for (const LabelRule* r : w.busy ? p.with_gpus : p.without_gpus) {
    if (auto because = r->judge(w))
      return {r->label(), std::move(*because), std::string(r->rule_id())};
  }
  // The last rule of each list (idle) always fires; this is for a list without it.
  return {Label::kUnknown, "no rule gave a label", ""};
}

std::optional<Verdict> judge_straggler(const Interval& iv, const Verdict& alone,
                                       std::optional<double> peers_median_busy, std::size_t peers,
                                       const Thresholds& t) {
  const LabelRule* r = watch_precedence().straggler;
  if (!r) return std::nullopt;
  Window w;
  w.iv = &iv;
  w.t = &t;
  w.busy = gpu_busy_share(iv);
  w.peers_median_busy = peers_median_busy;
  w.peers = peers;
  w.alone_label = label_id(alone.label);
  w.alone_because = alone.because;
  auto because = r->judge(w);
  if (!because) return std::nullopt;
  return Verdict{r->label(), std::move(*because), std::string(r->rule_id())};
}

namespace {

// "  communication  <text>  [watch-communication-bound]": the label column, then the rule's own
// words, lines after the first indented under the text.
std::string entry(const LabelRule& r, const Thresholds& t, bool with_gpus) {
  char head[40];
  std::snprintf(head, sizeof head, "  %-14s ", label_id(r.label()));
  return head + r.explain(t, with_gpus) + "\n                 rule " + std::string(r.rule_id()) +
         " (docs/rules/" + std::string(r.rule_id()) + ".md)\n";
}

}  // namespace

std::string explain_rules(const Thresholds& t) {
  const Precedence& p = watch_precedence();
  std::string s;
  s += "How watch labels each interval: each label is a rule, asked in this order; the first that\n"
       "fires gives the label (thresholds are choices stated here, not standards).\n\n";
  s += "With GPU counters (NVML), in this order:\n";
  s += "  (on a node with InfiniBand, the network below is InfiniBand; its front-end NIC is a\n"
       "  storage path: Blob through blobfuse, NFS, Azure Managed Lustre)\n";
  for (const LabelRule* r : p.with_gpus) s += entry(*r, t, true);
  s += "\nWithout GPU counters (no NVML), the watched processes' time, in this order:\n";
  for (const LabelRule* r : p.without_gpus) s += entry(*r, t, false);
  if (p.straggler) {
    s +=
        "\nReplaying several nodes' recordings together, over the label each interval got alone:\n";
    s += entry(*p.straggler, t, true);
  }
  s += "\nThe summary puts each interval's idle GPU time (1 - utilization) on its label: 'waiting "
       "on the\nnetwork' is the idle time of communication intervals, and so on.\n";
  return s;
}

}  // namespace trainready::watch
