#pragma once
// How busy the GPUs were over an interval, as a ratio, in one place: the rules (hang, compute,
// communication, ...), the summary's time shares and the straggler test all read it here.
//
// NVML's utilization (nvmlDeviceGetUtilizationRates().gpu, DCGM_FI_DEV_GPU_UTIL) is the share of
// the sample period in which one or more kernels ran: it reads 100 % for an NCCL kernel spinning
// on a few SMs while it waits for the network, or stuck in a hang. The busy share is that
// utilization as read. Where SM activity is sampled (DCGM_FI_PROF_SM_ACTIVE from a host engine,
// or NVML GPM's SM utilization: the share of cycles an SM had a warp resident, averaged over SMs)
// it tells spinning from computing: GPUs at >= 90 % utilization (Thresholds::gpu_busy) whose SMs
// are active < 0.3 of the cycles (Thresholds::sm_spinning) are spinning, and are not labelled
// compute. So are GPUs at that utilization drawing < 0.25 of their enforced power limit
// (Thresholds::power_spinning, with the hung-job measurements it rests on) unless their tensor
// pipes are active: the ClusterMAX "GPU_UTIL vs power consumption" test, which needs no DCGM and
// no GPM, so it works on A100 nodes too. That split is trainready's heuristic. What NVIDIA's DCGM
// guide (Feature Overview, "Profiling Metrics", SM Activity) says is that "a kernel using N/5
// blocks that runs over the entire time interval will correspond to an activity of 0.2", so a
// kernel spinning on a few SMs reads about 0.1-0.25, and that 0.8 or more is "necessary, but not
// sufficient, for effective use of the GPU": a statement about efficiency, not about how much of
// the time the GPU is busy, so SM activity does not scale the busy share.
#include <cstdio>
#include <optional>
#include <string>

#include "watch/interval.h"
#include "watch/thresholds.h"

namespace trainready::watch {

inline std::optional<double> gpu_busy_share(const Interval& iv) {
  return iv.gpu_busy ? iv.gpu_busy : iv.gpu_sm_active;
}

// The counters that say the SMs only poll, whatever the utilization: few SMs resident (SM
// activity < Thresholds::sm_spinning, where sampled), or the GPUs drawing under
// Thresholds::power_spinning of their enforced power limit (where NVML gives both) with no
// matrix math (tensor activity, where sampled, < Thresholds::tensor_working).
inline bool spinning_signal(const Interval& iv, const Thresholds& t) {
  if (iv.gpu_sm_active && *iv.gpu_sm_active < t.sm_spinning) return true;
  const bool tensor_working = iv.gpu_tensor_active && *iv.gpu_tensor_active >= t.tensor_working;
  return iv.gpu_power_ratio && *iv.gpu_power_ratio < t.power_spinning && !tensor_working;
}

// Kernels run all the time (>= Thresholds::gpu_busy) and the counters say they only poll: an
// NCCL kernel waiting on a peer or a network that never delivers, not compute.
inline bool gpus_spinning(const Interval& iv, const Thresholds& t) {
  return iv.gpu_busy && *iv.gpu_busy >= t.gpu_busy && spinning_signal(iv, t);
}

// Positive evidence of real work on the SMs, where sampled: SM activity >= sm_spinning or power
// >= power_spinning of the limit, and no spinning signal from the other counter. Without either
// counter there is no evidence either way (nullopt-like: false).
inline bool gpus_working(const Interval& iv, const Thresholds& t) {
  const bool sm = iv.gpu_sm_active && *iv.gpu_sm_active >= t.sm_spinning;
  const bool power = iv.gpu_power_ratio && *iv.gpu_power_ratio >= t.power_spinning;
  return (sm || power) && !spinning_signal(iv, t);
}

// The counters that tell spinning from work, those sampled, in the rules' words:
// ", SM activity 20 %, tensor active 0 %, power 12 % of the limit".
inline std::string gpu_activity_words(const Interval& iv) {
  auto pct = [](const char* what, double ratio) {
    char b[64];
    std::snprintf(b, sizeof b, ", %s %.0f %%", what, ratio * 100);
    return std::string(b);
  };
  std::string s;
  if (iv.gpu_sm_active) s += pct("SM activity", *iv.gpu_sm_active);
  if (iv.gpu_tensor_active) s += pct("tensor active", *iv.gpu_tensor_active);
  if (iv.gpu_power_ratio) s += pct("power", *iv.gpu_power_ratio) + " of the limit";
  return s;
}

}  // namespace trainready::watch
