#include "bench/collective_harness.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include <unistd.h>

#include "core/input_error.h"
#include "facts/nccl_tests_facts.h"

namespace trainready {

double pattern_value(int rank, std::size_t i) {
  return static_cast<double>((rank % 31 + 1) * static_cast<int>(i % 7 + 1));
}

std::vector<std::uint64_t> sweep_sizes(const HarnessOptions& o) {
  if (o.min_bytes > o.max_bytes)
    throw InputError("-b", 0,
                     "minimum size " + std::to_string(o.min_bytes) + " is above the maximum " +
                         std::to_string(o.max_bytes));
  if (o.step_bytes == 0 && !(o.factor > 1))
    throw InputError("-f", 0, "the step factor must be above 1 (or give -i STEP_BYTES)");
  if (o.warmup < 0 || o.iters < 1 || o.repeats < 1)
    throw InputError("-n", 0, "expected at least one timed iteration and one repeat");
  constexpr std::size_t kMaxSizes = 4096;
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = o.min_bytes; s <= o.max_bytes;) {
    sizes.push_back(s);
    if (sizes.size() > kMaxSizes)
      throw InputError("-i", 0, "the sweep has more than 4096 sizes: use a larger step");
    const std::uint64_t next =
        o.step_bytes > 0 ? s + o.step_bytes
                         : static_cast<std::uint64_t>(std::max<double>(
                               static_cast<double>(s) * o.factor, static_cast<double>(s) + 1));
    if (next <= s) break;
    s = next;
  }
  return sizes;
}

namespace {

using Clock = std::chrono::steady_clock;

// Typed buffers on the host: the input a rank uploads, and the result it expects back.
template <typename T>
struct HostData {
  static void fill(std::vector<unsigned char>& out, int rank, std::size_t elements,
                   std::size_t first = 0) {
    out.resize(elements * sizeof(T));
    T* p = reinterpret_cast<T*>(out.data());
    for (std::size_t i = 0; i < elements; ++i)
      p[i] = static_cast<T>(pattern_value(rank, first + i));
  }
  static long count_wrong(const unsigned char* got, const std::vector<double>& expected) {
    const T* g = reinterpret_cast<const T*>(got);
    long wrong = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) wrong += g[i] != static_cast<T>(expected[i]);
    return wrong;
  }
};

void fill(DataType t, std::vector<unsigned char>& out, int rank, std::size_t n,
          std::size_t first = 0) {
  switch (t) {
    case DataType::kFloat32:
      HostData<float>::fill(out, rank, n, first);
      break;
    case DataType::kFloat64:
      HostData<double>::fill(out, rank, n, first);
      break;
    case DataType::kInt32:
      HostData<std::int32_t>::fill(out, rank, n, first);
      break;
  }
}

long count_wrong(DataType t, const unsigned char* got, const std::vector<double>& expected) {
  switch (t) {
    case DataType::kFloat32:
      return HostData<float>::count_wrong(got, expected);
    case DataType::kFloat64:
      return HostData<double>::count_wrong(got, expected);
    case DataType::kInt32:
      return HostData<std::int32_t>::count_wrong(got, expected);
  }
  return 0;
}

// What this rank must hold afterwards.
std::vector<double> expected_result(Collective c, const CollectiveCounts& n, int rank, int ranks,
                                    int root) {
  std::vector<double> e(n.recv);
  const std::size_t base = n.param;
  switch (c) {
    case Collective::kAllReduce:
      for (std::size_t i = 0; i < n.recv; ++i)
        for (int r = 0; r < ranks; ++r) e[i] += pattern_value(r, i);
      break;
    case Collective::kAllGather:
      for (int p = 0; p < ranks; ++p)
        for (std::size_t i = 0; i < base; ++i) e[p * base + i] = pattern_value(p, i);
      break;
    case Collective::kReduceScatter:
      for (std::size_t i = 0; i < base; ++i)
        for (int r = 0; r < ranks; ++r) e[i] += pattern_value(r, rank * base + i);
      break;
    case Collective::kAllToAll:
      for (int p = 0; p < ranks; ++p)
        for (std::size_t i = 0; i < base; ++i) e[p * base + i] = pattern_value(p, rank * base + i);
      break;
    case Collective::kBroadcast:
      for (std::size_t i = 0; i < n.recv; ++i) e[i] = pattern_value(root, i);
      break;
    case Collective::kSendRecv:
      for (std::size_t i = 0; i < n.recv; ++i) e[i] = pattern_value((rank - 1 + ranks) % ranks, i);
      break;
  }
  return e;
}

Timing timing_of(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  Timing t;
  t.min_us = us.front();
  t.max_us = us.back();
  const std::size_t m = us.size() / 2;
  t.median_us = us.size() % 2 ? us[m] : (us[m - 1] + us[m]) / 2;
  return t;
}

class Buffers {
 public:
  Buffers(CommBackend& b, std::size_t bytes) : b_(b), bytes_(std::max<std::size_t>(bytes, 64)) {
    send_ = b_.allocate(bytes_);
    try {
      recv_ = b_.allocate(bytes_);
    } catch (...) {
      b_.release(send_);
      throw;
    }
  }
  ~Buffers() {
    b_.release(send_);
    b_.release(recv_);
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
  void* send() const { return send_; }
  void* recv() const { return recv_; }
  std::size_t bytes() const { return bytes_; }

 private:
  CommBackend& b_;
  std::size_t bytes_;
  void* send_ = nullptr;
  void* recv_ = nullptr;
};

}  // namespace

HarnessResult run_collective_harness(CommBackend& backend, const HarnessOptions& o) {
  const std::vector<std::uint64_t> sizes = sweep_sizes(o);
  const int ranks = backend.size();
  const int rank = backend.rank();
  if (o.root < 0 || o.root >= ranks)
    throw InputError("-r", 0,
                     "root " + std::to_string(o.root) + " is not a rank (0 to " +
                         std::to_string(ranks - 1) + ")");
  const CollectiveSpec& spec = spec_of(o.collective);
  HarnessResult result;
  result.backend = backend.name();
  result.ranks = ranks;
  result.busbw_factor = busbw_factor(spec.name, ranks).value_or(1);
  std::string dev = "Rank " + std::to_string(rank) + " Group  0 Pid " + std::to_string(::getpid()) +
                    " on " + backend.host() + " device " + std::to_string(backend.device_index()) +
                    " [" + backend.device_bus_id() + "] " + backend.device_name();
  result.devices = backend.gather_to_root(dev);

  const std::size_t ts = type_size(o.type);
  Buffers buffers(backend,
                  static_cast<std::size_t>(sizes.back()) + ts * static_cast<std::size_t>(ranks));
  std::vector<unsigned char> host;
  std::vector<unsigned char> back;
  double bw_sum = 0;
  int bw_count = 0;
  for (std::uint64_t size : sizes) {
    SizeResult sr;
    sr.size_bytes = size;
    sr.counts = collective_counts(o.collective, size, ranks, o.type);
    const CollectiveCounts& n = sr.counts;
    for (bool in_place : {false, true}) {
      PlaceResult& pr = in_place ? sr.in_place : sr.out_of_place;
      void* recv = buffers.recv();
      void* send = buffers.send();
      const std::size_t input_offset =
          in_place ? backend.in_place_input_offset(o.collective, n) : 0;
      auto upload_input = [&] {
        fill(o.type, host, rank, n.send);
        if (!host.empty())
          backend.upload(static_cast<unsigned char*>(in_place ? recv : send) + input_offset * ts,
                         host.data(), host.size());
      };
      upload_input();
      auto run_once = [&] {
        backend.run(o.collective, in_place ? recv : send, recv, n, o.type, o.root, in_place);
      };
      backend.barrier();
      for (int w = 0; w < o.warmup; ++w) run_once();
      backend.synchronize();
      std::vector<double> us;
      for (int r = 0; r < o.repeats; ++r) {
        backend.barrier();
        const auto t0 = Clock::now();
        for (int it = 0; it < o.iters; ++it) run_once();
        backend.synchronize();
        const double local =
            std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / o.iters;
        us.push_back(backend.max_over_ranks(local));
      }
      pr.time = timing_of(us);
      pr.algbw =
          pr.time.median_us > 0 ? static_cast<double>(n.bytes) / (pr.time.median_us * 1e3) : 0;
      pr.busbw = pr.algbw * result.busbw_factor;
      bw_sum += pr.busbw;
      ++bw_count;
      if (o.check) {
        // A fresh input, one run, then every element compared (in place, the timed runs
        // overwrote the input with results).
        upload_input();
        backend.barrier();
        run_once();
        backend.synchronize();
        const std::vector<double> expected = expected_result(o.collective, n, rank, ranks, o.root);
        const std::size_t result_offset =
            in_place ? backend.in_place_result_offset(o.collective, n) : 0;
        back.resize(expected.size() * ts);
        if (!back.empty())
          backend.download(back.data(), static_cast<unsigned char*>(recv) + result_offset * ts,
                           back.size());
        const long wrong = count_wrong(o.type, back.data(), expected);
        pr.wrong = static_cast<long>(backend.sum_over_ranks(static_cast<double>(wrong)));
        result.wrong += pr.wrong;
      }
    }
    result.sizes.push_back(sr);
  }
  result.avg_busbw = bw_count ? bw_sum / bw_count : 0;
  return result;
}

}  // namespace trainready
