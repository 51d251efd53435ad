// MD5 off the write path (issue 35, stage/md5_pipeline.h): chunks handed over in any order hash
// as the file in order; an abandoned file gives its buffers back and ends once; and, through the
// engine, the workers keep reading a file's later chunks while an earlier one is still being
// read (with the MD5 on the workers, they waited for it with their buffers).
#include "stage/md5_pipeline.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "stage/engine.h"
#include "stage/posix_source.h"
#include "support/paths.h"
#include "support/stage_bytes.h"

namespace trainready::stage {
namespace {

constexpr std::size_t kChunk = 4096;

TEST(StageMd5Pipeline, ChunksHandedOverOutOfOrderHashAsTheFileInOrder) {
  const std::string data = random_bytes(7 * kChunk + 100, 3);
  const std::uint64_t n = 8;
  BufferPool pool(kChunk, 8);
  HashPool hashers(pool, 2);
  hashers.start();
  Md5 md5;
  std::mutex mu;
  std::condition_variable cv;
  int ends = 0;
  std::string error = "unset";
  auto job = std::make_shared<OrderedMd5>(md5, n, [&](const std::string& e) {
    std::lock_guard<std::mutex> lock(mu);
    ++ends;
    error = e;
    cv.notify_all();
  });
  for (std::uint64_t k : {5, 1, 7, 0, 2, 6, 4, 3}) {
    auto buf = pool.take();
    const std::size_t len = std::min<std::size_t>(kChunk, data.size() - k * kChunk);
    std::memcpy(buf->p, data.data() + k * kChunk, len);
    hashers.push(job, k, std::move(buf), len);
  }
  hashers.finish();
  EXPECT_EQ(ends, 1);
  EXPECT_EQ(error, "");
  EXPECT_EQ(md5.hex(), md5_of(data));
  // Every buffer came back: all 8 can be taken again without waiting.
  std::vector<std::unique_ptr<AlignedBuffer>> all;
  for (int i = 0; i < 8; ++i) all.push_back(pool.take());
}

TEST(StageMd5Pipeline, AnAbandonedFileGivesItsBuffersBackAndEndsOnce) {
  BufferPool pool(kChunk, 3);
  HashPool hashers(pool, 1);
  hashers.start();
  Md5 md5;
  std::atomic<int> ends{0};
  auto job = std::make_shared<OrderedMd5>(md5, 10, [&](const std::string&) { ++ends; });
  hashers.push(job, 2, pool.take(), kChunk);  // held: chunk 0 never comes
  hashers.push(job, 3, pool.take(), kChunk);
  hashers.abandon(job);
  hashers.abandon(job);
  hashers.push(job, 4, pool.take(), kChunk);  // after the end: straight back
  hashers.finish();
  EXPECT_EQ(ends.load(), 1);
  std::vector<std::unique_ptr<AlignedBuffer>> all;
  for (int i = 0; i < 3; ++i) all.push_back(pool.take());
}

// Several files at once on one hash thread: their chunks go through the MD5's lanes side by side
// (Md5::update_together), whatever order the chunks arrive in and whatever each file's length;
// a file abandoned midway ends once and leaves the others' digests intact.
TEST(StageMd5Pipeline, SeveralFilesHashSideBySideAsEachAlone) {
  const std::size_t
      sizes[] = {9 * kChunk,        9 * kChunk + 1,   3 * kChunk - 63, kChunk + 64,
                 12 * kChunk + 100, 9 * kChunk,       2 * kChunk,      5 * kChunk + 7,
                 4 * kChunk,        7 * kChunk + 4000};  // 10 files: more than 8 lanes
  const std::size_t nfiles = std::size(sizes), abandoned = 3;
  BufferPool pool(kChunk, 80);  // more than the 66 chunks: a push never waits for a buffer
  HashPool hashers(pool, 1);
  hashers.start();
  std::vector<std::string> data;
  std::vector<std::unique_ptr<Md5>> md5s;
  std::vector<std::shared_ptr<OrderedMd5>> jobs;
  std::atomic<int> ends{0};
  std::vector<std::pair<std::size_t, std::uint64_t>> chunks;  // (file, chunk)
  for (std::size_t i = 0; i < nfiles; ++i) {
    data.push_back(random_bytes(sizes[i], static_cast<unsigned>(40 + i)));
    md5s.push_back(std::make_unique<Md5>());
    const std::uint64_t n = (sizes[i] + kChunk - 1) / kChunk;
    jobs.push_back(std::make_shared<OrderedMd5>(*md5s[i], n, [&](const std::string& e) {
      EXPECT_EQ(e, "");
      ++ends;
    }));
    for (std::uint64_t k = 0; k < n; ++k) chunks.emplace_back(i, k);
  }
  std::shuffle(chunks.begin(), chunks.end(), std::mt19937(9));
  std::size_t pushed = 0;
  for (const auto& [i, k] : chunks) {
    if (i == abandoned && ++pushed == 3) hashers.abandon(jobs[i]);
    auto buf = pool.take();
    const std::size_t len = std::min<std::size_t>(kChunk, sizes[i] - k * kChunk);
    std::memcpy(buf->p, data[i].data() + k * kChunk, len);
    hashers.push(jobs[i], k, std::move(buf), len);
  }
  // The hash thread ends every file by itself (finish() would hash leftovers on this thread and
  // hide a job a lost wake-up stranded); 30 s is far beyond the few milliseconds this takes.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (ends.load() < static_cast<int>(nfiles) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(ends.load(), static_cast<int>(nfiles)) << "before finish()";
  hashers.finish();
  EXPECT_EQ(ends.load(), static_cast<int>(nfiles));
  for (std::size_t i = 0; i < nfiles; ++i)
    if (i != abandoned) {
      EXPECT_EQ(md5s[i]->hex(), md5_of(data[i])) << "file " << i;
    }
  std::vector<std::unique_ptr<AlignedBuffer>> all;  // every buffer came back (none waits)
  for (int i = 0; i < 80; ++i) {
    all.push_back(pool.try_take());
    ASSERT_NE(all.back(), nullptr) << "buffer " << i;
  }
}

// A POSIX tree with one file of 6 chunks whose source publishes its MD5; the read of chunk 0
// waits until the read of chunk 3 has started (at most 20 s, then it goes on and says so).
class GatedSource : public PosixWithMd5 {
 public:
  using PosixWithMd5::PosixWithMd5;
  std::unique_ptr<SourceReader> open(const SourceEntry& e) override {
    return std::make_unique<Reader>(*this, inner_.open(e));
  }
  bool timed_out = false;

 private:
  class Reader : public SourceReader {
   public:
    Reader(GatedSource& s, std::unique_ptr<SourceReader> r) : s_(s), r_(std::move(r)) {}
    void read_at(std::uint64_t offset, std::span<std::byte> buf) override {
      const std::uint64_t k = offset / (1u << 20);
      std::unique_lock<std::mutex> lock(s_.mu_);
      if (k == 3) {
        s_.third_started_ = true;
        s_.cv_.notify_all();
      }
      if (k == 0 &&
          !s_.cv_.wait_for(lock, std::chrono::seconds(20), [&] { return s_.third_started_; }))
        s_.timed_out = true;
      lock.unlock();
      r_->read_at(offset, buf);
    }
    void confirm_unchanged() override { r_->confirm_unchanged(); }

   private:
    GatedSource& s_;
    std::unique_ptr<SourceReader> r_;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  bool third_started_ = false;
};

TEST(StageMd5Pipeline, WorkersReadLaterChunksWhileAnEarlierOneIsStillRead) {
  const std::string src = test::temp_dir("stage-md5-gate-src");
  const std::string dst = test::temp_dir("stage-md5-gate-dst");
  const std::string data = random_bytes((6u << 20) - 5, 11);
  std::ofstream(src + "/big.bin", std::ios::binary) << data;
  GatedSource s(src, md5_of(data));
  EngineOptions o;
  o.dst = dst;
  o.threads = 2;  // one waits in chunk 0; the other must get to chunk 3 meanwhile
  o.chunk_bytes = 1 << 20;
  StageFacts f = run_stage_copy(s, o);
  EXPECT_FALSE(s.timed_out) << "chunk 3 was not read while chunk 0 was: the MD5 held the workers";
  EXPECT_TRUE(f.failed.empty());
  EXPECT_EQ(f.files_md5_checked, 1u);
  std::ifstream in(dst + "/big.bin", std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), data);
}

TEST(StageMd5Pipeline, AWrongMd5OfAChunkedFileIsStillCaught) {
  const std::string src = test::temp_dir("stage-md5-wrong-src");
  const std::string dst = test::temp_dir("stage-md5-wrong-dst");
  const std::string data = random_bytes((5u << 20) + 7, 12);
  std::ofstream(src + "/big.bin", std::ios::binary) << data;
  GatedSource s(src, std::string(32, 'a'));
  EngineOptions o;
  o.dst = dst;
  o.threads = 3;
  o.chunk_bytes = 1 << 20;
  StageFacts f = run_stage_copy(s, o);
  ASSERT_EQ(f.failed.size(), 1u);
  EXPECT_EQ(f.failed[0].kind, "md5-mismatch");
  EXPECT_EQ(f.files_md5_checked, 0u);
  struct stat st {};
  EXPECT_NE(::stat((dst + "/big.bin").c_str(), &st), 0);  // never at its final name
}

}  // namespace
}  // namespace trainready::stage
