#pragma once
// A `bench storage` run as the facts the storage rule judges: what the path delivered, beside
// what the profile's accelerators need.
#include <string>

#include "bench/storage_run.h"
#include "facts/storage_bench_facts.h"

namespace trainready {

// `needed`: accelerators the path must feed (0: nobody said), `origin`: who said so.
StorageBenchFacts storage_facts(const StorageRun& run, const FeedProfile& profile, int needed,
                                const std::string& origin);

}  // namespace trainready
