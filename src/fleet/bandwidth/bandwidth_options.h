#pragma once
// What `fleet --bandwidth` runs: the all-reduce sweep and the pairwise test, per mode.
//   --quick: a prolog health check (seconds on a healthy cluster);
//   --bandwidth: the default;
//   --full: acceptance of a new cluster (large messages, more repeats).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/collective_harness.h"
#include "queries/pair_outliers.h"

namespace trainready {

struct BandwidthOptions {
  std::string mode = "default";
  HarnessOptions allreduce;
  bool run_allreduce = true;
  std::vector<std::uint64_t> pair_sizes;
  int pair_warmup = 1;  // >= 1: the first exchange also lines the two sides up
  int pair_iterations = 5;
  int pair_repeats = 3;
  // Every step (one exchange, one message to rank 0) gives up after this.
  std::chrono::milliseconds step_timeout{30000};
  std::string transport = "auto";  // auto: NCCL when every node has a GPU, else MPI
  int max_retests = 64;            // cells re-run before they are reported
  PairOutlierOptions outliers;
};

// The mode's sizes and counts; throws InputError for an unknown mode.
BandwidthOptions bandwidth_profile(const std::string& mode);

// "3 rounds x 1 size (4 MiB) x (1 warm-up + 3 x 1) exchanges": the work before it starts.
std::string bandwidth_work(const BandwidthOptions& o, int nodes, int rails);
// Seconds the pairwise part should take at `gbytes_per_s` per direction (no re-tests).
double pairwise_seconds(const BandwidthOptions& o, int nodes, double gbytes_per_s);
// Seconds when every step of the pairwise part times out: the bound a dead node costs.
double pairwise_worst_seconds(const BandwidthOptions& o, int nodes);

}  // namespace trainready
