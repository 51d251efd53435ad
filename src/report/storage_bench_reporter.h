#pragma once
// `bench storage` output: raw reads as text and as JSON with fio's field names (bw_bytes, iops,
// clat_ns percentiles, usr_cpu / sys_cpu); feed mode with DLIO's (train_au_percentage,
// train_au_meet_expectation, train_throughput_samples_per_second) and a verdict in GPU terms.
#include <string>
#include <vector>

#include "bench/feed.h"
#include "bench/raw_read.h"

namespace trainready {

struct StorageRunInfo {
  std::string path;
  std::vector<DatasetFile> files;
  std::string created;  // what --create did, if anything
};

std::string render_raw_read_text(const StorageRunInfo& info, const RawReadOptions& o,
                                 const RawReadResult& r);
std::string render_feed_text(const StorageRunInfo& info, const FeedOptions& o, const FeedSearch& s);
std::string feed_verdict(const FeedOptions& o, const FeedSearch& s);
std::string render_storage_json(const StorageRunInfo& info, const RawReadOptions* raw_o,
                                const RawReadResult* raw, const FeedOptions* feed_o,
                                const FeedSearch* feed);

}  // namespace trainready
