#pragma once
// The labels watch gives an interval and the thresholds the watch rules judge with (choices
// stated in --explain and docs/rules/watch-*.md, not standards).
namespace trainready::watch {

enum class Label {
  kCompute,        // GPUs busy (or, without GPUs, the processes on the CPU)
  kCommunication,  // waiting on the network: InfiniBand / Ethernet near line rate
  kInputStorage,   // waiting on reads: disk, NFS, fuse
  kInputCpu,       // waiting on the data loader's CPU (run-queue contention)
  kStraggler,      // this node idle while its peers work (--replay of several nodes)
  kHang,           // nothing moves while the processes are alive
  kIdle,           // GPUs idle and no counter explains why
  kUnknown,        // not enough counters to say anything
};
inline constexpr Label kAllLabels[] = {
    Label::kCompute,   Label::kCommunication, Label::kInputStorage, Label::kInputCpu,
    Label::kStraggler, Label::kHang,          Label::kIdle,         Label::kUnknown};

// "compute", "communication", "input-storage", ...: the words of the live view, JSON and HTML.
inline const char* label_id(Label l) {
  switch (l) {
    case Label::kCompute:
      return "compute";
    case Label::kCommunication:
      return "communication";
    case Label::kInputStorage:
      return "input-storage";
    case Label::kInputCpu:
      return "input-cpu";
    case Label::kStraggler:
      return "straggler";
    case Label::kHang:
      return "hang";
    case Label::kIdle:
      return "idle";
    case Label::kUnknown:
      return "unknown";
  }
  return "unknown";
}

struct Thresholds {
  double gpu_busy = 0.90;
  double net_saturated = 0.80;
  double net_active = 0.25;
  double storage_active_bytes_per_s = 1 << 20;
  double runq_wait_share = 0.20;
  double blkio_share = 0.20;
  double cpu_active_cores = 0.5;
  double quiet_bytes_per_s = 64 << 10;
  double gpu_quiet = 0.05;
  // SM activity (DCGM_FI_PROF_SM_ACTIVE / NVML GPM SM utilization) below which GPUs whose
  // kernels run all the time are spinning, not computing. NVIDIA's DCGM guide (Feature Overview,
  // Profiling Metrics): "A kernel using N/5 blocks that runs over the entire time interval will
  // correspond to an activity of 0.2", so an NCCL kernel spinning on a few SMs reads about
  // 0.1-0.25; 0.3 is trainready's line above that.
  double sm_spinning = 0.30;
  // Power draw over the enforced power limit (nvmlDeviceGetPowerUsage / ...EnforcedPowerLimit,
  // both mW) below which GPUs whose kernels run all the time are spinning, whatever their SM
  // activity: an NCCL kernel with one block per channel (MAXCHANNELS 64 from NCCL 2.25) can keep
  // SM activity above 0.3 while it polls a flag, and polling draws near idle power. What the
  // sources measured on hung jobs: "GPU util is 100% but the power consumption is pretty low
  // (~70W)" (NVIDIA/nccl#968, 2023); "the power usage will drop to around ~10%", 69-75 W of a 700 W
  // limit on H100 (LambdaLabsML/distributed-training-guide, diagnosing-errors/README.md); "~96% GPU
  // utilization at near-idle power (~18-21 W ...) is a kernel spinning in place" (NVIDIA/nccl#2213,
  // GB10); ClusterMAX 2.0 asks for "Stalled NCCL/RCCL job detection (GPU_UTIL vs power
  // consumption)". Those read 0.10-0.18 of the limit; 0.25 is trainready's line above them.
  double power_spinning = 0.25;
  // DCGM_FI_PROF_PIPE_TENSOR_ACTIVE (or GPM's any-tensor utilization), where sampled, at or
  // above which the GPUs do matrix math: not spinning, whatever the power reads. A kernel
  // polling a flag issues no tensor-core instruction; 0.10 is trainready's line.
  double tensor_working = 0.10;
  double hang_after_s = 60;
  double straggler_ratio = 0.5;
};

}  // namespace trainready::watch
