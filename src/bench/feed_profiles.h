#pragma once
// MLPerf Storage's emulated accelerators (mlcommons/storage configs/dlio/workload/*.yaml): what
// one accelerator reads per step and how long it computes on it. Demand per accelerator =
// batch × record / compute time.
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

struct FeedProfile {
  std::string name;         // unet3d-h100
  std::string workload;     // unet3d
  std::string accelerator;  // H100
  double record_bytes = 0;
  int batch = 0;
  double compute_seconds = 0;  // per step (batch)
  double au_threshold = 0.9;
  int read_threads = 4;  // per accelerator
  std::string source;
};

// Bytes per second one accelerator consumes: batch x record / compute time per step (0 when the
// profile computes for no time).
double demand_per_accelerator(const FeedProfile& p);

const std::vector<FeedProfile>& feed_profiles();
const FeedProfile* find_feed_profile(std::string_view name);

}  // namespace trainready
