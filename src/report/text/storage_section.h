#pragma once
// `bench storage` as text: raw reads (fio's figures: bandwidth, IOPS, completion latency, CPU,
// and whether the page cache was honest), or feed mode's trials per accelerator count with
// DLIO's AU, and what the path can feed.
#include <string>

#include "bench/storage_run.h"

namespace trainready {

std::string render_storage_text(const StorageRun& run);
// "this path keeps 3 H100s busy on unet3d (AU >= 90%); 4 need 12.7 GB/s; ..."
std::string feed_verdict(const FeedOptions& o, const FeedSearch& s);

}  // namespace trainready
