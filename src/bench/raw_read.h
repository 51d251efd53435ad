#pragma once
// Raw reads the way fio measures them: sequential or random, block size, queue depth, jobs;
// io_uring with registered buffers by default (liburing), a pread thread per job as the fallback
// (and the reason printed); O_DIRECT with statx's alignment, or buffered reads after evicting
// the files. Latency is completion latency (submission to completion), as fio's clat.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/dataset_files.h"
#include "bench/page_cache.h"

namespace trainready {

struct RawReadOptions {
  bool random = false;
  std::uint64_t block_size = 1 << 20;
  int iodepth = 32;
  int jobs = 1;
  bool direct = true;
  std::string engine = "io_uring";  // io_uring, psync
  double runtime_s = 0;             // 0: read the file set once; else loop until this long
  bool evict = true;                // drop the files from the page cache first
};

struct LatencySummary {
  std::uint64_t min_ns = 0;
  std::uint64_t max_ns = 0;
  double mean_ns = 0;
  std::map<std::string, std::uint64_t> percentiles;  // fio's keys: "50.000000"
};

struct RawReadResult {
  std::string engine;           // what ran
  std::string engine_fallback;  // why it is not the one asked for, if so
  bool direct = false;
  std::string direct_note;  // alignment, or why buffered
  std::uint64_t bytes = 0;
  std::uint64_t ios = 0;
  double seconds = 0;
  double bw_bytes = 0;
  double iops = 0;
  LatencySummary clat;
  double usr_cpu = 0;  // percent of one CPU, as fio
  double sys_cpu = 0;
  Residency before;
  Residency after;
  std::string evict_note;
  std::string cache_state;
};

// Throws InputError for options the files cannot take (a block size off the direct-I/O
// alignment), std::runtime_error for I/O errors.
RawReadResult run_raw_read(const std::vector<DatasetFile>& files, const RawReadOptions& o);

// Latency summary over samples (nanoseconds), fio's percentile list.
LatencySummary summarize_latencies(std::vector<std::uint64_t> ns);

}  // namespace trainready
