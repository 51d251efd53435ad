#include "bench/storage_facts.h"

namespace trainready {

StorageBenchFacts storage_facts(const StorageRun& run, const FeedProfile& profile, int needed,
                                const std::string& origin) {
  StorageBenchFacts f;
  f.path = run.info.path;
  f.profile = profile.name;
  f.accelerator = profile.accelerator;
  f.demand_per_accelerator_bytes_per_s = demand_per_accelerator(profile);
  f.au_threshold = profile.au_threshold;
  f.accelerators_needed = needed;
  f.accelerators_origin = origin;
  if (run.raw) {
    f.raw_bw_bytes_per_s = run.raw->bw_bytes;
    f.cache_state = run.raw->cache_state;
    f.read_mode = run.raw->direct ? "O_DIRECT" : "buffered";
  }
  if (run.feed) {
    f.feed = true;
    f.largest_meeting = run.feed->largest_meeting;
    for (const FeedResult& t : run.feed->trials) {
      f.trials.push_back(
          {t.accelerators, t.au, t.delivered_bytes_per_s, t.demand_bytes_per_s, t.meets});
      f.cache_state = t.cache_state;
      f.read_mode = t.read_mode;
    }
  }
  return f;
}

}  // namespace trainready
