#pragma once
// How busy the GPUs were over an interval, as a ratio, in one place: the rules (hang, compute,
// communication, ...), the summary's time shares and the straggler test all read it here.
//
// NVML's utilization (nvmlDeviceGetUtilizationRates().gpu, DCGM_FI_DEV_GPU_UTIL) is the share of
// the sample period in which one or more kernels ran: it reads 100 % for an NCCL kernel spinning
// on a few SMs while it waits for the network, or stuck in a hang. Where SM activity is sampled
// (DCGM_FI_PROF_SM_ACTIVE from a host engine, or NVML GPM's SM utilization: the share of cycles an
// SM had a warp resident, averaged over SMs) it caps that reading. NVIDIA's DCGM guide (Feature
// Overview, "Profiling Metrics", SM Activity) says a value of 0.8 or more is necessary for
// effective use of the GPU and under 0.5 likely ineffective, so SM activity at or above 0.8
// leaves the utilization as read and below it scales down linearly: a GPU at 100 % utilization
// whose SMs are active 10 % of the cycles counts as 12.5 % busy, not as computing.
#include <algorithm>
#include <optional>

#include "watch/interval.h"

namespace trainready::watch {

inline constexpr double kSmActiveForFullUse = 0.8;  // DCGM Feature Overview, SM Activity

inline std::optional<double> gpu_busy_share(const Interval& iv) {
  if (!iv.gpu_sm_active) return iv.gpu_busy;
  const double by_sm = std::min(1.0, *iv.gpu_sm_active / kSmActiveForFullUse);
  return iv.gpu_busy ? std::min(*iv.gpu_busy, by_sm) : by_sm;
}

}  // namespace trainready::watch
