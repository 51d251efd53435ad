#include "fleet/bandwidth/bandwidth_options.h"

#include <cstdio>

#include "core/input_error.h"
#include "fleet/bandwidth/pair_schedule.h"

namespace trainready {
namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

std::string bytes_text(std::uint64_t b) {
  if (b >= (1ull << 30) && b % (1ull << 30) == 0) return std::to_string(b >> 30) + " GiB";
  if (b >= kMiB && b % kMiB == 0) return std::to_string(b >> 20) + " MiB";
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b >> 10) + " KiB";
  return std::to_string(b) + " B";
}

int rounds_for(int nodes) { return static_cast<int>(round_robin_schedule(nodes).size()); }

}  // namespace

BandwidthOptions bandwidth_profile(const std::string& mode) {
  BandwidthOptions o;
  o.mode = mode;
  o.allreduce.collective = Collective::kAllReduce;
  o.allreduce.factor = 4;
  if (mode == "quick") {
    // A prolog runs before every job: a few seconds, enough to see a node or link at a
    // fraction of its peers, not to certify the line rate.
    o.allreduce.min_bytes = kMiB;
    o.allreduce.max_bytes = 16 * kMiB;
    o.allreduce.warmup = 2;
    o.allreduce.iters = 5;
    o.allreduce.repeats = 1;
    o.pair_sizes = {4 * kMiB};
    o.pair_warmup = 1;
    o.pair_iterations = 3;
    o.pair_repeats = 1;
    o.step_timeout = std::chrono::milliseconds(15000);
    o.max_retests = 16;
  } else if (mode == "default") {
    o.allreduce.min_bytes = kMiB;
    o.allreduce.max_bytes = 256 * kMiB;
    o.allreduce.warmup = 3;
    o.allreduce.iters = 10;
    o.allreduce.repeats = 3;
    o.pair_sizes = {64 * kMiB};
    o.pair_warmup = 1;
    o.pair_iterations = 5;
    o.pair_repeats = 3;
  } else if (mode == "full") {
    // Acceptance: all-reduce up to 8 GiB, where nccl-tests' busbw reaches its plateau on
    // InfiniBand clusters (docs/busbw.md), and pairs at a latency-bound and a bandwidth-bound size.
    o.allreduce.min_bytes = kMiB;
    o.allreduce.max_bytes = 8ull << 30;
    o.allreduce.factor = 2;
    o.allreduce.warmup = 5;
    o.allreduce.iters = 20;
    o.allreduce.repeats = 5;
    o.pair_sizes = {kMiB, 256 * kMiB};
    o.pair_warmup = 2;
    o.pair_iterations = 10;
    o.pair_repeats = 5;
    o.step_timeout = std::chrono::milliseconds(120000);
    o.max_retests = 256;
  } else {
    throw InputError("--bandwidth", 0, "unknown mode '" + mode + "' (quick, default, full)");
  }
  return o;
}

std::string bandwidth_work(const BandwidthOptions& o, int nodes, int rails) {
  std::string sizes;
  for (std::uint64_t s : o.pair_sizes) sizes += (sizes.empty() ? "" : ", ") + bytes_text(s);
  std::string out;
  if (o.run_allreduce) {
    const std::size_t n = sweep_sizes(o.allreduce).size();
    out += "all-reduce " + std::to_string(n) + " sizes (" + bytes_text(o.allreduce.min_bytes) +
           " to " + bytes_text(o.allreduce.max_bytes) + ") x (" +
           std::to_string(o.allreduce.warmup) + " warm-up + " + std::to_string(o.allreduce.iters) +
           " x " + std::to_string(o.allreduce.repeats) + ") iterations; then ";
  }
  out += "pairs: " + std::to_string(rounds_for(nodes)) + " rounds of " + std::to_string(nodes / 2) +
         " concurrent pairs x " + std::to_string(o.pair_sizes.size()) +
         (o.pair_sizes.size() == 1 ? " size (" : " sizes (") + sizes + ") x (" +
         std::to_string(o.pair_warmup) + " warm-up + " + std::to_string(o.pair_iterations) + " x " +
         std::to_string(o.pair_repeats) + ") exchanges";
  if (rails > 1) out += ", " + std::to_string(rails) + " rails at once";
  return out;
}

double pairwise_seconds(const BandwidthOptions& o, int nodes, double gbytes_per_s) {
  if (!(gbytes_per_s > 0)) return 0;
  double bytes = 0;
  for (std::uint64_t s : o.pair_sizes)
    bytes += static_cast<double>(s) * (o.pair_warmup + o.pair_iterations * o.pair_repeats);
  return rounds_for(nodes) * bytes / (gbytes_per_s * 1e9);
}

double pairwise_worst_seconds(const BandwidthOptions& o, int nodes) {
  // A step that times out ends that pair's size: one timeout per (round, size).
  return static_cast<double>(rounds_for(nodes)) * static_cast<double>(o.pair_sizes.size()) *
         std::chrono::duration<double>(o.step_timeout).count();
}

}  // namespace trainready
