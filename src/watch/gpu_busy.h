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
// compute. That split is trainready's heuristic. What NVIDIA's DCGM guide (Feature Overview,
// "Profiling Metrics", SM Activity) says is that "a kernel using N/5 blocks that runs over the
// entire time interval will correspond to an activity of 0.2", so a kernel spinning on a few SMs
// reads about 0.1-0.25, and that 0.8 or more is "necessary, but not sufficient, for effective use
// of the GPU": a statement about efficiency, not about how much of the time the GPU is busy, so
// SM activity does not scale the busy share.
#include <optional>

#include "watch/interval.h"
#include "watch/thresholds.h"

namespace trainready::watch {

inline std::optional<double> gpu_busy_share(const Interval& iv) {
  return iv.gpu_busy ? iv.gpu_busy : iv.gpu_sm_active;
}

// Kernels run all the time but on few SMs: an NCCL kernel waiting, not compute.
inline bool gpus_spinning(const Interval& iv, const Thresholds& t) {
  return iv.gpu_busy && *iv.gpu_busy >= t.gpu_busy && iv.gpu_sm_active &&
         *iv.gpu_sm_active < t.sm_spinning;
}

}  // namespace trainready::watch
