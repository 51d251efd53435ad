#pragma once
// The copy engine's units of work (stage/engine.cpp): a file being copied (FileJob), a task of
// small files or one chunk of a big file (Task), the bounded queue between the listing and the
// workers, and the timer that charges a scope to one phase of the counters.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "stage/dest_file.h"
#include "stage/hashing.h"
#include "stage/md5_pipeline.h"
#include "stage/progress.h"
#include "stage/source.h"

namespace trainready::stage::copy {

using Clock = std::chrono::steady_clock;

inline std::uint64_t since_ns(Clock::time_point t0) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
}

// Times a scope into one phase of the counters.
class PhaseTimer {
 public:
  PhaseTimer(Counters& c, Phase p) : c_(c), p_(p), t0_(Clock::now()) {}
  ~PhaseTimer() { c_.add(p_, since_ns(t0_)); }

 private:
  Counters& c_;
  Phase p_;
  Clock::time_point t0_;
};

struct FileJob {
  std::uint64_t id = 0;
  SourceEntry e;
  std::uint64_t nchunks = 1;
  std::map<std::uint64_t, std::string> recorded;  // chunks an earlier run wrote
  std::vector<std::string> hashes;
  std::unique_ptr<DestFile> dest;  // big files: opened when listed
  std::atomic<std::uint64_t> remaining{0};
  std::atomic<bool> failed{false};
  // Bytes read from the source for this file in this run: counted as copied only once it is
  // staged (a file that fails after its reads was read, not copied).
  std::atomic<std::uint64_t> read{0};
  // MD5 is a stream: chunks feed it in order. A file of several chunks hands them to `ordered`
  // (a hash thread, stage/md5_pipeline.h); otherwise, or when no hash thread could be started, a
  // chunk waits for its predecessor (which a worker already holds: chunks are queued in order).
  std::unique_ptr<Md5> md5;
  std::shared_ptr<OrderedMd5> ordered;
  std::mutex mu;
  std::condition_variable cv;
  std::uint64_t md5_next = 0;
};

struct Task {
  std::vector<std::shared_ptr<FileJob>> small;
  std::shared_ptr<FileJob> big;
  std::uint64_t chunk = 0;
};

class TaskQueue {
 public:
  explicit TaskQueue(std::size_t cap) : cap_(cap) {}
  void push(Task t) {
    std::unique_lock<std::mutex> lock(mu_);
    not_full_.wait(lock, [&] { return q_.size() < cap_; });
    q_.push_back(std::move(t));
    not_empty_.notify_one();
  }
  // Empty when closed and drained.
  std::optional<Task> pop(Counters& c) {
    const auto t0 = Clock::now();
    std::unique_lock<std::mutex> lock(mu_);
    not_empty_.wait(lock, [&] { return !q_.empty() || closed_; });
    // Waiting counts against the listing only while it runs; afterwards an idle worker is
    // one whose share is done while others finish the last chunks.
    if (!c.listing_done.load()) c.add(Phase::kIdle, since_ns(t0));
    if (q_.empty()) return std::nullopt;
    Task t = std::move(q_.front());
    q_.pop_front();
    not_full_.notify_one();
    return t;
  }
  // Takes, without waiting, up to `max` tasks at the front that are chunks `next`, `next + 1`, ...
  // of file `f` (queued in order by enqueue()); returns how many.
  std::size_t pop_following(const FileJob* f, std::uint64_t next, std::size_t max) {
    std::lock_guard<std::mutex> lock(mu_);
    std::size_t n = 0;
    while (n < max && !q_.empty() && q_.front().big.get() == f && q_.front().chunk == next) {
      q_.pop_front();
      ++next;
      ++n;
    }
    if (n > 0) not_full_.notify_all();
    return n;
  }
  void close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    not_empty_.notify_all();
  }

 private:
  std::size_t cap_;
  std::mutex mu_;
  std::condition_variable not_empty_, not_full_;
  std::deque<Task> q_;
  bool closed_ = false;
};

// A run of chunks for a worker that holds the task of chunk `k` of `f`, its buffer in bufs[0]:
// up to `want` buffers, the extra ones spares taken without waiting (the worker holds a task:
// stage/md5_pipeline.h), then as many of the file's next chunks as there are buffers, if they
// are next in the queue. Unused spares go back; bufs ends with one buffer per chunk of the run.
inline void gather_run(TaskQueue& queue, BufferPool& spares, const FileJob& f, std::uint64_t k,
                       std::size_t want, std::vector<std::unique_ptr<AlignedBuffer>>& bufs) {
  while (bufs.size() < want) {
    auto b = spares.try_take();
    if (!b) break;
    bufs.push_back(std::move(b));
  }
  const std::size_t got = 1 + queue.pop_following(&f, k + 1, bufs.size() - 1);
  while (bufs.size() > got) {
    spares.give(std::move(bufs.back()));
    bufs.pop_back();
  }
}

}  // namespace trainready::stage::copy
