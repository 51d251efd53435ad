#include "bench/feed.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include "bench/direct_io.h"
#include "bench/page_cache.h"
#include "core/input_error.h"

namespace trainready {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kChunk = 4 << 20;  // a record is read in pieces of this size

struct Record {
  int file = 0;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

// Every record of the dataset: a file holds size / record whole records.
std::vector<Record> records_of(const std::vector<DatasetFile>& files, double record_bytes) {
  std::vector<Record> out;
  const auto rec = static_cast<std::uint64_t>(record_bytes);
  for (std::size_t f = 0; f < files.size(); ++f) {
    for (std::uint64_t off = 0; off + rec <= files[f].size; off += rec)
      out.push_back({static_cast<int>(f), off, rec});
  }
  std::shuffle(out.begin(), out.end(), std::mt19937_64(42));
  return out;
}

// One accelerator's input pipeline: its read threads take records of the next batches, at most
// `prefetch` batches ahead of the one the accelerator consumes (reading included, as DLIO's
// prefetch); a batch is ready when all its records are read.
class Pipeline {
 public:
  Pipeline(int steps, int batch, int prefetch)
      : done_(static_cast<std::size_t>(steps), 0),
        steps_(steps),
        batch_(batch),
        prefetch_(prefetch) {}
  // The next record to read as (batch, index in batch), or false when there is none left.
  bool take(int& batch) {
    std::unique_lock<std::mutex> l(m_);
    while (!closed_) {
      const int item = next_item_;
      if (item >= steps_ * batch_) return false;
      if (item / batch_ < consumed_ + prefetch_) {
        ++next_item_;
        batch = item / batch_;
        return true;
      }
      cv_.wait(l);
    }
    return false;
  }
  void done(int batch) {
    std::lock_guard<std::mutex> l(m_);
    if (++done_[static_cast<std::size_t>(batch)] == batch_) cv_.notify_all();
  }
  // Waits until batch `s` is complete; false if the pipeline was closed first.
  bool consume(int s) {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return done_[static_cast<std::size_t>(s)] >= batch_ || closed_; });
    if (done_[static_cast<std::size_t>(s)] < batch_) return false;
    consumed_ = s + 1;
    cv_.notify_all();
    return true;
  }
  void close() {
    std::lock_guard<std::mutex> l(m_);
    closed_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<int> done_;
  int next_item_ = 0;
  int consumed_ = 0;
  int steps_;
  int batch_;
  int prefetch_;
  bool closed_ = false;
};

}  // namespace

double accelerator_utilization(const std::vector<std::vector<StepTiming>>& steps) {
  double sum = 0;
  int n = 0;
  for (const auto& acc : steps) {
    double compute = 0;
    double wall = 0;
    for (std::size_t i = 1; i < acc.size(); ++i) {
      compute += acc[i].compute_s;
      wall += acc[i].compute_s + acc[i].wait_s;
    }
    if (wall <= 0) continue;
    sum += compute / wall;
    ++n;
  }
  return n ? sum / n : 0;
}

FeedResult run_feed(const std::vector<DatasetFile>& files, const FeedOptions& o) {
  const FeedProfile& p = o.profile;
  if (o.accelerators < 1 || o.steps < 2 || o.prefetch < 1 || p.batch < 1 || p.record_bytes < 1 ||
      p.compute_seconds < 0 || p.read_threads < 1)
    throw InputError("--feed", 0,
                     "expected accelerators >= 1, steps >= 2, prefetch >= 1, batch >= 1, "
                     "record bytes >= 1, read threads >= 1");
  for (const DatasetFile& f : files) {
    if (static_cast<double>(f.size) < p.record_bytes)
      throw InputError(f.path, 0,
                       "holds " + std::to_string(f.size) + " bytes, less than one " + p.name +
                           " record (" +
                           std::to_string(static_cast<std::uint64_t>(p.record_bytes)) +
                           " bytes): create a dataset for it with --feed --create N");
  }
  const std::vector<Record> records = records_of(files, p.record_bytes);
  FeedResult r;
  r.accelerators = o.accelerators;
  r.steps = o.steps;
  DirectIoSupport dio{};
  if (o.direct) dio = direct_io_support(files.front().path);
  const OpenDataset open(files, o.direct && dio.supported);
  const bool direct = open.direct();
  const std::uint64_t align = direct ? dio.offset_alignment : 1;
  r.read_mode = direct      ? "O_DIRECT"
                : !o.direct ? "buffered"
                            : "buffered after eviction (" +
                                  (open.refused_direct().empty()
                                       ? dio.how
                                       : "O_DIRECT refused on " + open.refused_direct()) +
                                  ")";
  const std::vector<int>& fds = open.fds();
  if (o.evict) evict_from_page_cache(files);
  const Residency before = measure_residency(files);
  r.cache_state = cache_state_label(
      direct_reads_bypass_cache(direct, memory_backed(files.front().path), o.evict, before),
      before);

  const auto n_acc = static_cast<std::size_t>(o.accelerators);
  std::vector<std::unique_ptr<Pipeline>> pipes;
  for (std::size_t a = 0; a < n_acc; ++a)
    pipes.push_back(std::make_unique<Pipeline>(o.steps, p.batch, o.prefetch));
  std::atomic<std::size_t> next_record{0};
  std::atomic<std::uint64_t> bytes_read{0};
  std::atomic<bool> failed{false};
  std::string error;
  std::mutex error_m;
  std::vector<std::vector<StepTiming>> timings(n_acc);

  // Buffers, touched before the clock.
  const std::size_t readers_per = static_cast<std::size_t>(p.read_threads);
  std::vector<void*> buffers(n_acc * readers_per);
  for (void*& b : buffers) {
    if (posix_memalign(&b, std::max<std::size_t>(dio.memory_alignment, 4096), kChunk + 2 * align) !=
        0)
      throw std::runtime_error("out of memory for read buffers");
    std::memset(b, 0, kChunk + 2 * align);
  }
  struct FreeAll {
    std::vector<void*>& b;
    ~FreeAll() {
      for (void* x : b) std::free(x);
    }
  } freer{buffers};

  auto read_record = [&](const Record& rec, void* buf) {
    // Aligned cover of the record for O_DIRECT; the record's bytes are what counts.
    std::uint64_t begin = rec.offset / align * align;
    const std::uint64_t end = std::min(files[static_cast<std::size_t>(rec.file)].size + align,
                                       (rec.offset + rec.length + align - 1) / align * align);
    while (begin < end) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, end - begin));
      const ssize_t got =
          ::pread(fds[static_cast<std::size_t>(rec.file)], buf, n, static_cast<off_t>(begin));
      if (got < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error(files[static_cast<std::size_t>(rec.file)].path + ": " +
                                 std::strerror(errno));
      }
      if (got == 0) break;
      begin += static_cast<std::uint64_t>(got);
    }
    bytes_read += rec.length;
  };

  const auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (std::size_t a = 0; a < n_acc; ++a) {
    for (std::size_t k = 0; k < readers_per; ++k) {
      void* buf = buffers[a * readers_per + k];
      threads.emplace_back([&, a, buf] {
        try {
          int batch = 0;
          while (!failed && pipes[a]->take(batch)) {
            read_record(records[next_record++ % records.size()], buf);
            pipes[a]->done(batch);
          }
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> l(error_m);
          error = e.what();
          failed = true;
          for (auto& q : pipes) q->close();
        }
      });
    }
    threads.emplace_back([&, a] {
      for (int s = 0; s < o.steps; ++s) {
        const auto w0 = Clock::now();
        if (!pipes[a]->consume(s)) return;
        const auto w1 = Clock::now();
        std::this_thread::sleep_for(std::chrono::duration<double>(p.compute_seconds));
        const auto w2 = Clock::now();
        timings[a].push_back({std::chrono::duration<double>(w1 - w0).count(),
                              std::chrono::duration<double>(w2 - w1).count()});
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (failed) throw std::runtime_error("reading the dataset: " + error);
  r.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  r.au = accelerator_utilization(timings);
  r.meets = r.au >= p.au_threshold;
  const double samples = static_cast<double>(o.accelerators) * o.steps * p.batch;
  r.samples_per_s = r.wall_s > 0 ? samples / r.wall_s : 0;
  r.delivered_bytes_per_s = r.wall_s > 0 ? static_cast<double>(bytes_read.load()) / r.wall_s : 0;
  r.demand_bytes_per_s = o.accelerators * demand_per_accelerator(p);
  std::vector<std::uint64_t> waits;
  for (const auto& acc : timings)
    for (std::size_t i = 1; i < acc.size(); ++i)
      waits.push_back(static_cast<std::uint64_t>(acc[i].wait_s * 1e9));
  r.wait = summarize_latencies(std::move(waits));
  return r;
}

FeedSearch search_accelerators(const std::vector<DatasetFile>& files, const FeedOptions& o,
                               int max_accelerators) {
  FeedSearch s;
  auto trial = [&](int n) -> const FeedResult& {
    FeedOptions t = o;
    t.accelerators = n;
    s.trials.push_back(run_feed(files, t));
    return s.trials.back();
  };
  int good = 0;
  int bad = 0;
  for (int n = std::max(1, o.accelerators); n <= max_accelerators; n *= 2) {
    if (trial(n).meets) {
      good = n;
    } else {
      bad = n;
      break;
    }
  }
  while (bad > 0 && bad - good > 1) {
    const int mid = (good + bad) / 2;
    if (trial(mid).meets)
      good = mid;
    else
      bad = mid;
  }
  s.largest_meeting = good;
  for (std::size_t i = 0; i < s.trials.size(); ++i) {
    if (s.trials[i].accelerators == bad) s.first_failing = static_cast<int>(i);
  }
  return s;
}

}  // namespace trainready
