#pragma once
// Attribution: rules over windows of the timeline that give each interval one label, saying what
// the GPUs (or, without GPUs, the watched processes) spent it on. Rules never read files: they
// see Intervals only, so every rule is testable from a few numbers, live and in --replay alike.
#include <string>
#include <vector>

#include "watch/interval.h"

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

const char* label_id(Label l);  // "compute", "communication", "input-storage", ...

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
  double hang_after_s = 60;
  double straggler_ratio = 0.5;
};

struct Verdict {
  Label label = Label::kUnknown;
  std::string because;  // the counters that decided, with values and units
};

// Labels intervals in order; remembers what a window needs (how long everything has been quiet,
// whether the job ever used the network).
class Attributor {
 public:
  explicit Attributor(Thresholds t = {}) : t_(t) {}
  Verdict label(const Interval& iv);
  const Thresholds& thresholds() const { return t_; }

 private:
  Verdict with_gpus(const Interval& iv, double quiet_for);
  Verdict without_gpus(const Interval& iv, double quiet_for);
  Thresholds t_;
  double quiet_seconds_ = 0;
  bool network_seen_ = false;
};

// For --explain: each label's rule, thresholds and the counters behind it.
std::string explain_rules(const Thresholds& t);

}  // namespace trainready::watch
