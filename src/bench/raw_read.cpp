#include "bench/raw_read.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <thread>

#include "bench/direct_io.h"
#include "core/input_error.h"

#ifdef TRAINREADY_HAVE_URING
#include <liburing.h>
#endif

namespace trainready {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
          .count());
}

struct Block {
  int file = 0;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
};

// A job's share of the file set: whole files round-robin, or, with fewer files than jobs,
// contiguous ranges of each file; random order shuffles the blocks (each read once, as fio's
// random map).
std::vector<Block> job_blocks(const std::vector<DatasetFile>& files, const RawReadOptions& o,
                              int job, std::uint64_t align) {
  std::vector<Block> blocks;
  const auto jobs = static_cast<std::uint64_t>(o.jobs);
  for (std::size_t f = 0; f < files.size(); ++f) {
    std::uint64_t begin = 0;
    std::uint64_t end = files[f].size;
    if (files.size() >= jobs) {
      if (f % jobs != static_cast<std::uint64_t>(job)) continue;
    } else {
      const std::uint64_t blocks_in_file = (files[f].size + o.block_size - 1) / o.block_size;
      const std::uint64_t per = (blocks_in_file + jobs - 1) / jobs;
      begin = std::min(files[f].size, per * static_cast<std::uint64_t>(job) * o.block_size);
      end = std::min(files[f].size, begin + per * o.block_size);
    }
    for (std::uint64_t off = begin; off < end; off += o.block_size) {
      std::uint64_t len = std::min<std::uint64_t>(o.block_size, end - off);
      len = (len + align - 1) / align * align;  // O_DIRECT: whole aligned units; EOF reads short
      blocks.push_back({static_cast<int>(f), off, static_cast<std::uint32_t>(len)});
    }
  }
  if (o.random) {
    std::mt19937_64 rng(0x5eed + static_cast<std::uint64_t>(job));
    std::shuffle(blocks.begin(), blocks.end(), rng);
  }
  return blocks;
}

// One region for all of a job's buffers, 2 MiB aligned and backed by huge pages where the kernel
// gives them (as fio's --fixedbufs): a 1 MiB O_DIRECT read then maps to a few physical segments
// instead of 256 pages, which some devices would split into several requests.
class AlignedBuffers {
 public:
  AlignedBuffers(std::size_t count, std::size_t size, std::size_t align)
      : size_((size + align - 1) / align * align), count_(count) {
    constexpr std::size_t kHuge = 2 << 20;
    const std::size_t bytes = (count_ * size_ + kHuge - 1) / kHuge * kHuge;
    if (posix_memalign(&base_, std::max(align, kHuge), bytes) != 0)
      throw std::runtime_error("out of memory for I/O buffers");
    ::madvise(base_, bytes, MADV_HUGEPAGE);
    std::memset(base_, 0, bytes);  // touched before the clock starts
  }
  ~AlignedBuffers() { std::free(base_); }
  AlignedBuffers(const AlignedBuffers&) = delete;
  AlignedBuffers& operator=(const AlignedBuffers&) = delete;
  void* at(std::size_t i) const { return static_cast<char*>(base_) + i * size_; }
  std::size_t size() const { return size_; }
  std::size_t count() const { return count_; }

 private:
  void* base_ = nullptr;
  std::size_t size_;
  std::size_t count_;
};

struct JobOutput {
  std::uint64_t bytes = 0;
  std::vector<std::uint64_t> latencies;
  std::string error;
};

struct JobInput {
  const std::vector<int>* fds;
  std::vector<Block> blocks;
  AlignedBuffers* buffers;
  double runtime_s;
  std::uint64_t deadline_ns;
};

void run_psync(const JobInput& in, JobOutput& out) {
  std::size_t i = 0;
  while (true) {
    if (i == in.blocks.size()) {
      if (in.runtime_s <= 0 || now_ns() >= in.deadline_ns) break;
      i = 0;  // time based: read the share again
    }
    const Block& b = in.blocks[i++];
    const std::uint64_t t0 = now_ns();
    const ssize_t r = ::pread((*in.fds)[static_cast<std::size_t>(b.file)], in.buffers->at(0),
                              b.length, static_cast<off_t>(b.offset));
    const std::uint64_t t1 = now_ns();
    if (r < 0) {
      if (errno == EINTR) {
        --i;
        continue;
      }
      out.error = std::string("pread: ") + std::strerror(errno);
      return;
    }
    out.bytes += static_cast<std::uint64_t>(r);
    out.latencies.push_back(t1 - t0);
  }
}

#ifdef TRAINREADY_HAVE_URING
// Returns false (with why) when io_uring cannot be set up; then the caller falls back.
bool uring_available(int depth, std::string& why) {
  io_uring ring{};
  const int e = io_uring_queue_init(static_cast<unsigned>(depth), &ring, 0);
  if (e < 0) {
    why = std::string("io_uring_queue_init: ") + std::strerror(-e);
    return false;
  }
  io_uring_queue_exit(&ring);
  return true;
}

void run_uring(const JobInput& in, int depth, JobOutput& out) {
  io_uring ring{};
  int e = io_uring_queue_init(static_cast<unsigned>(depth), &ring, 0);
  if (e < 0) {
    out.error = std::string("io_uring_queue_init: ") + std::strerror(-e);
    return;
  }
  std::vector<iovec> iov(in.buffers->count());
  for (std::size_t i = 0; i < iov.size(); ++i) iov[i] = {in.buffers->at(i), in.buffers->size()};
  const bool fixed =
      io_uring_register_buffers(&ring, iov.data(), static_cast<unsigned>(iov.size())) == 0;
  struct Slot {
    std::uint64_t start = 0;
    std::size_t block = 0;
  };
  std::vector<Slot> slots(static_cast<std::size_t>(depth));
  std::vector<int> free_slots(static_cast<std::size_t>(depth));
  std::iota(free_slots.begin(), free_slots.end(), 0);
  std::size_t next = 0;
  unsigned inflight = 0;
  bool done = false;
  auto submit_more = [&] {
    while (!free_slots.empty() && !done) {
      if (next == in.blocks.size()) {
        if (in.runtime_s <= 0 || now_ns() >= in.deadline_ns) {
          done = true;
          break;
        }
        next = 0;
      }
      const int s = free_slots.back();
      free_slots.pop_back();
      const Block& b = in.blocks[next];
      io_uring_sqe* sqe = io_uring_get_sqe(&ring);
      const int fd = (*in.fds)[static_cast<std::size_t>(b.file)];
      if (fixed)
        io_uring_prep_read_fixed(sqe, fd, in.buffers->at(static_cast<std::size_t>(s)), b.length,
                                 b.offset, s);
      else
        io_uring_prep_read(sqe, fd, in.buffers->at(static_cast<std::size_t>(s)), b.length,
                           b.offset);
      io_uring_sqe_set_data64(sqe, static_cast<std::uint64_t>(s));
      slots[static_cast<std::size_t>(s)] = {now_ns(), next};
      ++next;
      ++inflight;
    }
  };
  submit_more();
  std::vector<io_uring_cqe*> ready(static_cast<std::size_t>(depth));
  while (inflight > 0) {
    // Submit what is queued and wait for a completion in one system call, as fio does.
    e = io_uring_submit_and_wait(&ring, 1);
    if (e == -EINTR) continue;
    if (e < 0) {
      out.error = std::string("io_uring_submit_and_wait: ") + std::strerror(-e);
      break;
    }
    // Reap every completion that is there, then queue as many reads: fewer system calls and
    // device notifications than one of each per read.
    const unsigned n =
        io_uring_peek_batch_cqe(&ring, ready.data(), static_cast<unsigned>(ready.size()));
    const std::uint64_t t = now_ns();
    for (unsigned i = 0; i < n; ++i) {
      const auto s = static_cast<int>(io_uring_cqe_get_data64(ready[i]));
      const int res = ready[i]->res;
      if (res < 0) {
        out.error = std::string("read: ") + std::strerror(-res);
        done = true;
      } else {
        out.bytes += static_cast<std::uint64_t>(res);
        out.latencies.push_back(t - slots[static_cast<std::size_t>(s)].start);
      }
      free_slots.push_back(s);
    }
    io_uring_cq_advance(&ring, n);
    inflight -= n;
    submit_more();
  }
  if (fixed) io_uring_unregister_buffers(&ring);
  io_uring_queue_exit(&ring);
}
#endif

double seconds_of(const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; }

}  // namespace

LatencySummary summarize_latencies(std::vector<std::uint64_t> ns) {
  LatencySummary s;
  if (ns.empty()) return s;
  std::sort(ns.begin(), ns.end());
  s.min_ns = ns.front();
  s.max_ns = ns.back();
  s.mean_ns = std::accumulate(ns.begin(), ns.end(), 0.0) / static_cast<double>(ns.size());
  for (double p : {1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5,
                   99.9, 99.95, 99.99}) {
    // fio's nearest rank: the smallest sample with at least p% at or below it.
    auto rank =
        static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(ns.size()) - 1e-9));
    rank = std::clamp<std::size_t>(rank, 1, ns.size());
    char key[32];
    std::snprintf(key, sizeof key, "%f", p);
    s.percentiles[key] = ns[rank - 1];
  }
  return s;
}

RawReadResult run_raw_read(const std::vector<DatasetFile>& files, const RawReadOptions& o) {
  if (o.block_size == 0 || o.block_size > (1u << 30))
    throw InputError("--bs", 0, "expected a block size from 1 B to 1 GiB");
  if (o.iodepth < 1 || o.iodepth > 4096) throw InputError("--iodepth", 0, "expected 1 to 4096");
  if (o.jobs < 1 || o.jobs > 1024) throw InputError("--numjobs", 0, "expected 1 to 1024");
  if (o.engine != "io_uring" && o.engine != "psync")
    throw InputError("--ioengine", 0, "'" + o.engine + "': expected io_uring or psync");
  RawReadResult r;
  // Direct I/O when asked and the file system takes it.
  std::uint64_t align = 1;
  std::size_t mem_align = 4096;
  if (o.direct) {
    const DirectIoSupport d = direct_io_support(files.front().path);
    if (d.supported) {
      if (o.block_size % d.offset_alignment != 0)
        throw InputError("--bs", 0,
                         std::to_string(o.block_size) +
                             " is not a multiple of the direct-I/O alignment (" + d.how +
                             "); use a multiple or --direct 0");
      r.direct = true;
      align = d.offset_alignment;
      mem_align = d.memory_alignment;
      r.direct_note = "O_DIRECT (" + d.how + ")";
    } else {
      r.direct_note = "buffered after eviction: " + d.how;
    }
  } else {
    r.direct_note = "buffered (--direct 0)";
  }
  // The engine.
  r.engine = o.engine;
#ifdef TRAINREADY_HAVE_URING
  if (r.engine == "io_uring") {
    std::string why;
    if (!uring_available(o.iodepth, why)) {
      r.engine = "psync";
      r.engine_fallback = "io_uring unavailable (" + why + "): a pread thread per job";
    }
  }
#else
  if (r.engine == "io_uring") {
    r.engine = "psync";
    r.engine_fallback = "built without liburing: a pread thread per job";
  }
#endif
  // Every file open once, shared by the jobs.
  const OpenDataset open(files, r.direct);
  if (r.direct && !open.direct()) {
    r.direct = false;
    r.direct_note = "buffered after eviction: O_DIRECT refused on " + open.refused_direct();
  }
  const std::vector<int>& fds = open.fds();
  if (o.evict) r.evict_note = evict_from_page_cache(files);
  r.before = measure_residency(files);
  // tmpfs takes O_DIRECT and still serves it from RAM: never "cold-verified" there.
  const bool in_memory = memory_backed(files.front().path);
  const bool bypass = direct_reads_bypass_cache(r.direct, in_memory, o.evict, r.before);
  if (r.direct && in_memory)
    r.direct_note += "; the file system is memory (tmpfs): reads come from RAM";
  else if (r.direct && !bypass)
    r.direct_note += "; still all cached after eviction: reads may come from RAM";
  r.cache_state = cache_state_label(bypass, r.before);

  // Buffers and block lists before the clock.
  const int depth = r.engine == "io_uring" ? o.iodepth : 1;
  std::vector<std::unique_ptr<AlignedBuffers>> buffers;
  std::vector<JobInput> inputs;
  std::vector<JobOutput> outputs(static_cast<std::size_t>(o.jobs));
  const std::size_t buf_size = (o.block_size + align - 1) / align * align;
  for (int j = 0; j < o.jobs; ++j) {
    buffers.push_back(
        std::make_unique<AlignedBuffers>(static_cast<std::size_t>(depth), buf_size, mem_align));
    inputs.push_back({&fds, job_blocks(files, o, j, align), buffers.back().get(), o.runtime_s, 0});
  }
  rusage ru0{};
  ::getrusage(RUSAGE_SELF, &ru0);
  const std::uint64_t t0 = now_ns();
  for (JobInput& in : inputs) in.deadline_ns = t0 + static_cast<std::uint64_t>(o.runtime_s * 1e9);
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(o.jobs));
  for (int j = 0; j < o.jobs; ++j) {
    threads.emplace_back([&, j] {
      const auto k = static_cast<std::size_t>(j);
#ifdef TRAINREADY_HAVE_URING
      if (r.engine == "io_uring") {
        run_uring(inputs[k], depth, outputs[k]);
        return;
      }
#endif
      run_psync(inputs[k], outputs[k]);
    });
  }
  for (std::thread& t : threads) t.join();
  const std::uint64_t t1 = now_ns();
  rusage ru1{};
  ::getrusage(RUSAGE_SELF, &ru1);
  std::vector<std::uint64_t> all;
  for (JobOutput& out : outputs) {
    if (!out.error.empty())
      throw std::runtime_error("reading " + files.front().path + ": " + out.error);
    r.bytes += out.bytes;
    all.insert(all.end(), out.latencies.begin(), out.latencies.end());
  }
  r.ios = all.size();
  r.seconds = static_cast<double>(t1 - t0) / 1e9;
  r.bw_bytes = r.seconds > 0 ? static_cast<double>(r.bytes) / r.seconds : 0;
  r.iops = r.seconds > 0 ? static_cast<double>(r.ios) / r.seconds : 0;
  r.clat = summarize_latencies(std::move(all));
  r.usr_cpu =
      r.seconds > 0 ? 100 * (seconds_of(ru1.ru_utime) - seconds_of(ru0.ru_utime)) / r.seconds : 0;
  r.sys_cpu =
      r.seconds > 0 ? 100 * (seconds_of(ru1.ru_stime) - seconds_of(ru0.ru_stime)) / r.seconds : 0;
  r.after = measure_residency(files);
  return r;
}

}  // namespace trainready
