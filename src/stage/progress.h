#pragma once
// The copy's counters (shared by the workers, read by the progress line and the outcome) and
// what limits the rate right now: the stage where the workers spent most of their time in the
// last interval (source reads, destination writes, metadata, hashing, --max-bw, waiting for the
// listing), CPU when the process used nearly every core, or the VM's NIC when a remote source
// reads at its ceiling.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace trainready::stage {

enum class Phase { kRead, kWrite, kMeta, kHash, kThrottle, kIdle, kCount };

// Words for the progress line and the outcome.
const char* phase_name(Phase p);

struct Counters {
  std::atomic<std::uint64_t> files_listed{0}, bytes_listed{0};
  std::atomic<bool> listing_done{false};
  std::atomic<std::uint64_t> files_done{0}, bytes_done{0};  // staged (copied, resumed, skipped)
  std::atomic<std::uint64_t> bytes_read{0};                 // from the source, this run
  std::atomic<std::uint64_t> phase_ns[static_cast<int>(Phase::kCount)]{};
  void add(Phase p, std::uint64_t ns) {
    phase_ns[static_cast<int>(p)].fetch_add(ns, std::memory_order_relaxed);
  }
};

// One sample of the counters, and the limit between two samples.
struct Sample {
  double t = 0;  // seconds since start
  double cpu_s = 0;
  std::uint64_t bytes_done = 0, bytes_read = 0, files_done = 0;
  std::uint64_t phase_ns[static_cast<int>(Phase::kCount)]{};
};

Sample take_sample(const Counters& c, double t);

struct LimitContext {
  int cores = 1;
  double nic_bytes_per_s = 0;  // 0: unknown or not a remote source
  double max_bw = 0;           // --max-bw, 0: none
};

// What limited the copy between `a` and `b`, in words ("destination writes", "CPU", ...).
std::string limit_between(const Sample& a, const Sample& b, const LimitContext& ctx);

// "[#####.....] 1.2 GB / 4.0 GB  120 / 400 files  310 MB/s  ETA 9s  limit: source reads"
std::string progress_line(const Sample& prev, const Sample& now, const Counters& c,
                          const LimitContext& ctx, int width);

// Process CPU seconds (user + system) so far.
double process_cpu_seconds();

// The progress line on stderr every 500 ms, redrawn in place, from a thread of its own until
// stop() (or destruction). Without a thread to spare there is no line and the copy goes on.
class ProgressPrinter {
 public:
  ProgressPrinter(const Counters& c, const LimitContext& ctx,
                  std::chrono::steady_clock::time_point t0);
  ~ProgressPrinter() { stop(); }
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;
  void stop();

 private:
  bool stop_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace trainready::stage
