#pragma once
// One `bench storage` run as measured: the files, and raw reads or the feed search.
#include <optional>
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

struct StorageRun {
  StorageRunInfo info;
  std::optional<RawReadOptions> raw_options;
  std::optional<RawReadResult> raw;
  std::optional<FeedOptions> feed_options;
  std::optional<FeedSearch> feed;
};

}  // namespace trainready
