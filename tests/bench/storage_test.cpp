// Storage benchmark units on real files in a temporary directory: dataset creation and listing,
// page-cache residency and eviction, raw reads through both engines, latency percentiles, AU.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "bench/dataset_files.h"
#include "bench/direct_io.h"
#include "bench/feed.h"
#include "bench/page_cache.h"
#include "bench/raw_read.h"
#include "core/input_error.h"
#include "support/paths.h"

namespace trainready {
namespace {

std::uint64_t total(const std::vector<DatasetFile>& fs) {
  std::uint64_t t = 0;
  for (const auto& f : fs) t += f.size;
  return t;
}

TEST(DatasetFiles, CreateListAndReuse) {
  const std::string d = test::temp_dir("ds-create") + "/set";
  CreateResult c = create_dataset(d, 3, 100000);
  ASSERT_EQ(c.files.size(), 3u);
  EXPECT_EQ(c.bytes, 300000u);
  EXPECT_EQ(c.reused, 0);
  auto listed = list_dataset(d);
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_NE(listed[0].path.find("data-000000.bin"), std::string::npos);
  EXPECT_EQ(listed[2].size, 100000u);
  CreateResult again = create_dataset(d, 3, 100000);
  EXPECT_EQ(again.reused, 3);
  EXPECT_EQ(again.bytes, 0u);
  // The content is not zeros (a compressing or deduplicating store would flatter it).
  std::ifstream in(listed[0].path, std::ios::binary);
  std::string head(64, '\0');
  in.read(head.data(), 64);
  EXPECT_NE(head, std::string(64, '\0'));
}

TEST(DatasetFiles, BadPathsAreInputErrors) {
  const std::string d = test::temp_dir("ds-bad");
  EXPECT_THROW(list_dataset(d + "/missing"), InputError);
  EXPECT_THROW(list_dataset(d), InputError);  // no files
  EXPECT_THROW(list_dataset("/dev/null"), InputError);
  EXPECT_THROW(create_dataset("/proc/no-such-dir/x", 1, 10), InputError);
  EXPECT_THROW(create_dataset(d + "/z", 0, 10), InputError);
}

TEST(PageCache, ResidencyFollowsReadsAndEviction) {
  const std::string d = test::temp_dir("ds-cache") + "/set";
  auto files = create_dataset(d, 2, 1 << 20).files;
  ASSERT_TRUE(evict_from_page_cache(files).empty());
  Residency cold = measure_residency(files);
  ASSERT_TRUE(cold.known) << cold.why_unknown;
  EXPECT_EQ(cold.total_bytes, 2u << 20);
  EXPECT_LT(cold.fraction(), 0.05);
  EXPECT_EQ(cache_state_label(false, cold), "cold-verified");
  for (const auto& f : files) {
    std::ifstream in(f.path, std::ios::binary);
    std::vector<char> buf(f.size);
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
  }
  Residency hot = measure_residency(files);
  EXPECT_GT(hot.fraction(), 0.95);
  EXPECT_EQ(cache_state_label(false, hot), "hot");
  Residency half;
  half.known = true;
  half.total_bytes = 100;
  half.resident_bytes = 50;
  EXPECT_EQ(cache_state_label(false, half), "warm");
  EXPECT_EQ(cache_state_label(false, Residency{}), "unverifiable");
  EXPECT_EQ(cache_state_label(true, Residency{}), "cold-verified");
}

TEST(RawRead, BothEnginesReadEveryByteOnce) {
  const std::string d = test::temp_dir("ds-raw") + "/set";
  auto files = create_dataset(d, 3, (3 << 20) + 4096).files;  // not a whole number of blocks
  for (const char* engine : {"io_uring", "psync"}) {
    for (bool random : {false, true}) {
      RawReadOptions o;
      o.engine = engine;
      o.random = random;
      o.block_size = 1 << 20;
      o.iodepth = 8;
      o.jobs = 2;
      RawReadResult r = run_raw_read(files, o);
      EXPECT_EQ(r.bytes, total(files)) << engine << random;
      EXPECT_EQ(r.ios, 3u * 4u) << engine;  // 3 whole blocks and a tail per file
      EXPECT_GT(r.bw_bytes, 0);
      EXPECT_LE(r.clat.min_ns, r.clat.max_ns);
      EXPECT_EQ(r.clat.percentiles.size(), 17u);
      EXPECT_FALSE(r.cache_state.empty());
    }
  }
}

TEST(RawRead, OneFileSplitsOverJobsAndTimeBasedLoops) {
  const std::string d = test::temp_dir("ds-jobs") + "/set";
  auto files = create_dataset(d, 1, 4 << 20).files;
  RawReadOptions o;
  o.block_size = 256 << 10;
  o.jobs = 3;
  RawReadResult r = run_raw_read(files, o);
  EXPECT_EQ(r.bytes, 4u << 20);
  o.jobs = 1;
  o.runtime_s = 0.2;
  o.direct = false;
  o.evict = false;
  RawReadResult t = run_raw_read(files, o);
  EXPECT_GT(t.bytes, 4u << 20);  // read the file more than once
  EXPECT_GE(t.seconds, 0.2);
}

TEST(RawRead, DirectIoAlignmentAndOptions) {
  const std::string d = test::temp_dir("ds-direct") + "/set";
  auto files = create_dataset(d, 1, 1 << 20).files;
  const DirectIoSupport s = direct_io_support(files[0].path);
  RawReadOptions o;
  if (s.supported) {
    o.block_size = s.offset_alignment + 1;
    EXPECT_THROW(run_raw_read(files, o), InputError);
  }
  o.block_size = 0;
  EXPECT_THROW(run_raw_read(files, o), InputError);
  o.block_size = 4096;
  o.engine = "libaio";
  EXPECT_THROW(run_raw_read(files, o), InputError);
  // tmpfs took O_DIRECT only from Linux 6.6 (and reports no statx alignment): either way the
  // report says how the files were read.
  struct stat st {};
  if (::stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && ::access("/dev/shm", W_OK) == 0) {
    const std::string shm = "/dev/shm/trainready-test-" + std::to_string(::getpid());
    auto tmpfs_files = create_dataset(shm, 1, 1 << 20).files;
    RawReadOptions t;
    RawReadResult r = run_raw_read(tmpfs_files, t);
    EXPECT_EQ(r.bytes, 1u << 20);
    if (r.direct)
      EXPECT_EQ(r.direct_note.rfind("O_DIRECT (", 0), 0u) << r.direct_note;
    else
      EXPECT_NE(r.direct_note.find("buffered after eviction"), std::string::npos) << r.direct_note;
    // tmpfs keeps the data in memory whatever O_DIRECT says: never "cold-verified" (issue 19).
    EXPECT_TRUE(memory_backed(shm));
    EXPECT_NE(r.cache_state, "cold-verified") << r.direct_note;
    ::unlink(tmpfs_files[0].path.c_str());
    ::rmdir(shm.c_str());
  }
}

// Issue 19: O_DIRECT is cold only where it reaches the device.
TEST(PageCache, DirectReadsAreColdOnlyOffMemory) {
  Residency all;
  all.known = true;
  all.total_bytes = all.resident_bytes = 1 << 20;
  Residency none = all;
  none.resident_bytes = 0;
  EXPECT_TRUE(direct_reads_bypass_cache(true, false, true, none));
  EXPECT_FALSE(direct_reads_bypass_cache(true, true, true, none));    // tmpfs
  EXPECT_FALSE(direct_reads_bypass_cache(true, false, true, all));    // eviction did not take
  EXPECT_TRUE(direct_reads_bypass_cache(true, false, false, all));    // --no-evict on a disk
  EXPECT_FALSE(direct_reads_bypass_cache(false, false, true, none));  // buffered
  EXPECT_EQ(cache_state_label(direct_reads_bypass_cache(true, true, true, all), all), "hot");
}

// fio's nearest-rank percentiles.
TEST(Latency, Percentiles) {
  std::vector<std::uint64_t> ns;
  for (std::uint64_t i = 1; i <= 1000; ++i) ns.push_back(i);
  LatencySummary s = summarize_latencies(ns);
  EXPECT_EQ(s.min_ns, 1u);
  EXPECT_EQ(s.max_ns, 1000u);
  EXPECT_DOUBLE_EQ(s.mean_ns, 500.5);
  EXPECT_EQ(s.percentiles.at("50.000000"), 500u);
  EXPECT_EQ(s.percentiles.at("99.000000"), 990u);
  EXPECT_EQ(s.percentiles.at("99.900000"), 999u);
  EXPECT_EQ(s.percentiles.at("99.990000"), 1000u);
  EXPECT_TRUE(summarize_latencies({}).percentiles.empty());
}

// DLIO / MLPerf Storage: AU = compute time / wall time, first step excluded.
TEST(Feed, AccleratorUtilizationExcludesTheFirstStep) {
  std::vector<std::vector<StepTiming>> t = {{{5.0, 1.0}, {0.0, 1.0}, {1.0, 1.0}}};
  EXPECT_DOUBLE_EQ(accelerator_utilization(t), 2.0 / 3.0);
  t.push_back({{0, 1}, {0, 1}});
  EXPECT_DOUBLE_EQ(accelerator_utilization(t), (2.0 / 3.0 + 1.0) / 2);
  EXPECT_EQ(accelerator_utilization({}), 0);
}

FeedOptions tiny(double record, int batch, double compute) {
  FeedOptions o;
  o.profile = {"tiny", "tiny", "GPU", record, batch, compute, 0.9, 2, "test"};
  o.steps = 6;
  return o;
}

TEST(Feed, FastStorageKeepsAcceleratorsBusySlowDoesNot) {
  const std::string d = test::temp_dir("ds-feed") + "/set";
  auto files = create_dataset(d, 4, 1 << 20).files;
  // 4 records of 16 KiB per 30 ms step: a trickle.
  FeedResult fast = run_feed(files, tiny(16384, 4, 0.03));
  EXPECT_GT(fast.au, 0.8);
  EXPECT_NEAR(fast.demand_bytes_per_s, 4 * 16384 / 0.03, 1e-6);
  EXPECT_GT(fast.delivered_bytes_per_s, 0);
  // 16 records of 1 MiB per 1 ms step: 16 GB/s, far beyond this disk with the cache evicted.
  FeedResult slow = run_feed(files, tiny(1 << 20, 16, 0.001));
  EXPECT_LT(slow.au, 0.5);
  EXPECT_FALSE(slow.meets);
}

TEST(Feed, SearchFindsTheLargestCountMeetingTheThreshold) {
  const std::string d = test::temp_dir("ds-search") + "/set";
  auto files = create_dataset(d, 2, 1 << 20).files;
  FeedSearch s = search_accelerators(files, tiny(16384, 2, 0.03), 4);
  EXPECT_EQ(s.largest_meeting, 4);
  EXPECT_EQ(s.first_failing, -1);
  EXPECT_EQ(s.trials.size(), 3u);  // 1, 2, 4
}

TEST(Feed, RecordsLargerThanTheFilesAreAnInputError) {
  const std::string d = test::temp_dir("ds-small") + "/set";
  auto files = create_dataset(d, 1, 4096).files;
  EXPECT_THROW(run_feed(files, tiny(1 << 20, 1, 0.01)), InputError);
}

}  // namespace
}  // namespace trainready
