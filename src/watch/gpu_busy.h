#pragma once
// How busy the GPUs were over an interval, as a ratio, in one place: the rules (hang, compute,
// communication, ...), the summary's time shares and the straggler test all read it here.
// Today it is NVML's utilization (nvmlDeviceGetUtilizationRates().gpu: the share of the sample
// period in which one or more kernels ran, averaged over GPUs), which reads 100 % for a kernel
// spinning in a collective. Where a finer counter is sampled (DCGM_FI_PROF_SM_ACTIVE: the share
// of cycles an SM had a warp resident) this is the one function to make prefer it.
#include <optional>

#include "watch/interval.h"

namespace trainready::watch {

inline std::optional<double> gpu_busy_share(const Interval& iv) { return iv.gpu_busy; }

}  // namespace trainready::watch
