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
  double hang_after_s = 60;
  double straggler_ratio = 0.5;
};

}  // namespace trainready::watch
