#pragma once
// The collective benchmark harness, nccl-tests' way: a size sweep (-b -e -f or -i), warm-up and
// timed iterations, out-of-place and in-place, data validation counted as #wrong elements, and
// per size the time (min / median / max over repeats; the slowest rank's each time), algbw and
// busbw. A back end (MPI, NCCL) only runs the operation.
#include <cstdint>
#include <string>
#include <vector>

#include "bench/collective.h"
#include "bench/comm_backend.h"

namespace trainready {

struct HarnessOptions {
  Collective collective = Collective::kAllReduce;
  DataType type = DataType::kFloat32;
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 64ull << 20;
  double factor = 2;             // -f: multiply
  std::uint64_t step_bytes = 0;  // -i: add (used when > 0)
  int warmup = 5;                // -w
  int iters = 20;                // -n
  int repeats = 3;               // -N: timed loops per size, for min / median / max
  bool check = true;             // -c
  int root = 0;                  // -r
};

// The sizes of the sweep; throws InputError naming the flag when they make no sweep.
std::vector<std::uint64_t> sweep_sizes(const HarnessOptions& o);

struct Timing {
  double min_us = 0;
  double median_us = 0;
  double max_us = 0;
};

struct PlaceResult {
  Timing time;
  double algbw = 0;  // GB/s (1e9 B/s) at the median time
  double busbw = 0;
  long wrong = -1;  // elements that differ from the expected result, all ranks; -1 unchecked
};

struct SizeResult {
  std::uint64_t size_bytes = 0;
  CollectiveCounts counts;
  PlaceResult out_of_place;
  PlaceResult in_place;
};

struct HarnessResult {
  std::string backend;
  int ranks = 0;
  double busbw_factor = 1;
  std::vector<std::string> devices;  // "# Using devices" lines, rank 0 only
  std::vector<SizeResult> sizes;
  double avg_busbw = 0;  // nccl-tests' "Avg bus bandwidth": every size, both placements
  long wrong = 0;
};

// Runs the sweep on every rank; the result is complete on rank 0.
HarnessResult run_collective_harness(CommBackend& backend, const HarnessOptions& o);

// The value rank r puts at element i of its input: small whole numbers, so sums are exact in
// every data type.
double pattern_value(int rank, std::size_t i);

}  // namespace trainready
