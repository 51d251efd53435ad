#pragma once
// Feed mode: emulated accelerators consume what the readers deliver, as DLIO / MLPerf Storage
// emulate them. Each accelerator has read threads that fill a bounded queue of batches (the
// prefetch depth); each step it takes a batch — waiting if none is ready — and "computes" for the
// profile's time. Accelerator utilization (AU) = compute time / wall time, first step excluded.
#include <string>
#include <vector>

#include "bench/dataset_files.h"
#include "bench/feed_profiles.h"
#include "bench/raw_read.h"

namespace trainready {

struct FeedOptions {
  FeedProfile profile;
  int accelerators = 1;
  int steps = 10;
  int prefetch = 2;  // batches queued per accelerator
  bool direct = true;
  bool evict = true;
};

struct StepTiming {
  double wait_s = 0;
  double compute_s = 0;
};

struct FeedResult {
  int accelerators = 0;
  int steps = 0;
  double au = 0;  // 0..1
  bool meets = false;
  double wall_s = 0;
  double samples_per_s = 0;
  double delivered_bytes_per_s = 0;
  double demand_bytes_per_s = 0;  // accelerators × batch × record / compute
  LatencySummary wait;            // per step, first step excluded
  std::string read_mode;          // O_DIRECT, or buffered after eviction
  std::string cache_state;
};

// DLIO's AU for each accelerator (steps after the first), averaged over accelerators.
double accelerator_utilization(const std::vector<std::vector<StepTiming>>& steps);

FeedResult run_feed(const std::vector<DatasetFile>& files, const FeedOptions& o);

struct FeedSearch {
  std::vector<FeedResult> trials;  // in the order run
  int largest_meeting = 0;         // accelerators kept at or above the threshold
  int first_failing = -1;          // index in trials of the smallest count that fell short
};

// 1, 2, 4, ... accelerators until AU falls below the threshold (or max_accelerators), then
// bisection between the last count that met it and the first that did not.
FeedSearch search_accelerators(const std::vector<DatasetFile>& files, const FeedOptions& o,
                               int max_accelerators);

}  // namespace trainready
