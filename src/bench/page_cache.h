#pragma once
// How much of a file set sits in the page cache, and evicting it: honest storage numbers need to
// know whether reads came from the device or from memory. cachestat(2) where the kernel has it
// (Linux 6.5+), mincore(2) on a mapping otherwise; eviction with POSIX_FADV_DONTNEED.
#include <cstdint>
#include <string>
#include <vector>

#include "bench/dataset_files.h"

namespace trainready {

struct Residency {
  bool known = false;
  std::uint64_t resident_bytes = 0;
  std::uint64_t total_bytes = 0;
  std::string method;  // cachestat, mincore
  std::string why_unknown;
  double fraction() const {
    return total_bytes ? static_cast<double>(resident_bytes) / static_cast<double>(total_bytes) : 0;
  }
};

Residency measure_residency(const std::vector<DatasetFile>& files);

// Drops the files' clean pages from the page cache (dirty ones are written first). Returns an
// empty string, or why it could not.
std::string evict_from_page_cache(const std::vector<DatasetFile>& files);

// True on a file system whose files live in memory (tmpfs, ramfs): O_DIRECT, which tmpfs takes
// since Linux 6.6, still reads RAM there, and eviction cannot drop the pages.
bool memory_backed(const std::string& path);

// Whether O_DIRECT reads of these files come from the device: not on a memory file system, and
// not when the files are still all cached right after an eviction (the pages cannot be dropped:
// whatever serves them is memory). Without eviction (--no-evict) cached pages do not matter:
// O_DIRECT reads the device past them.
bool direct_reads_bypass_cache(bool direct_io, bool memory_fs, bool evicted,
                               const Residency& before);

// cold-verified: the reads bypassed the cache (O_DIRECT, on a file system that is not memory:
// callers pass direct_io false on tmpfs) or the files were measured out of it
// before reading; hot: all of it was cached; warm: part; unverifiable: residency unknown.
std::string cache_state_label(bool direct_io, const Residency& before);

}  // namespace trainready
