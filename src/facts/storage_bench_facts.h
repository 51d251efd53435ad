#pragma once
// What `bench storage` measured, as the storage rule judges it: the bandwidth the path delivered
// (raw reads) or the accelerators it kept busy (feed mode), beside what the accelerators need.
#include <optional>
#include <string>
#include <vector>

namespace trainready {

struct FeedTrialFacts {
  int accelerators = 0;
  double au = 0;  // 0..1, DLIO's accelerator utilization
  double delivered_bytes_per_s = 0;
  double demand_bytes_per_s = 0;
  bool meets = false;
};

struct StorageBenchFacts {
  std::string path;
  bool feed = false;        // feed mode (emulated accelerators) rather than raw reads
  std::string cache_state;  // cold-verified, warm, hot, unverifiable
  std::string read_mode;    // O_DIRECT, buffered

  // The workload the accelerators run: the profile's name, and one accelerator's demand.
  std::string profile;
  std::string accelerator;  // H100, A100
  double demand_per_accelerator_bytes_per_s = 0;
  double au_threshold = 0;
  // How many accelerators must be fed, and who said so (--accelerators, --sku's GPUs per VM);
  // 0 when nobody did (raw reads then have nothing to be judged against).
  int accelerators_needed = 0;
  std::string accelerators_origin;

  std::optional<double> raw_bw_bytes_per_s;  // raw reads
  std::vector<FeedTrialFacts> trials;        // feed mode, in the order run
  int largest_meeting = 0;                   // feed mode: accelerators kept at the threshold
};

}  // namespace trainready
