// Runs of chunks (issue 35): where the source reads several consecutive chunks in one request
// (Blob: one ranged GET, SourceHints::max_chunks_per_read), a worker reads a run of a large
// file's chunks at once, and each chunk is still hashed, written, journaled and fed to the
// file's MD5 on its own. Checked through the engine with a POSIX tree behind a source that
// counts its read_pieces calls.
#include <sys/stat.h>

#include <atomic>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "stage/engine.h"
#include "stage/hashing.h"
#include "stage/posix_source.h"
#include "support/paths.h"
#include "support/stage_bytes.h"

namespace trainready::stage {
namespace {

// PosixSource with the source's MD5 published, reads of up to 4 chunks at once, and (when
// `fail_at` is set) a read_pieces call covering that offset failing as a changed file.
class RunSource : public PosixWithMd5 {
 public:
  using PosixWithMd5::PosixWithMd5;
  SourceHints hints() const override {
    SourceHints h = inner_.hints();
    h.max_chunks_per_read = 4;
    return h;
  }
  std::unique_ptr<SourceReader> open(const SourceEntry& e) override {
    return std::make_unique<Reader>(*this, inner_.open(e), e.path);
  }
  std::atomic<int> multi_piece_reads{0}, max_pieces{0}, pieces_read{0};
  std::int64_t fail_at = -1;

 private:
  class Reader : public SourceReader {
   public:
    Reader(RunSource& s, std::unique_ptr<SourceReader> r, std::string path)
        : s_(s), r_(std::move(r)), path_(std::move(path)) {}
    void read_at(std::uint64_t offset, std::span<std::byte> buf) override {
      ++s_.pieces_read;
      r_->read_at(offset, buf);
    }
    void read_pieces(std::uint64_t offset, std::span<const std::span<std::byte>> pieces) override {
      const int n = static_cast<int>(pieces.size());
      if (n > 1) ++s_.multi_piece_reads;
      int seen = s_.max_pieces.load();
      while (n > seen && !s_.max_pieces.compare_exchange_weak(seen, n)) {
      }
      std::uint64_t total = 0;
      for (const auto& p : pieces) total += p.size();
      if (s_.fail_at >= 0 && static_cast<std::uint64_t>(s_.fail_at) >= offset &&
          static_cast<std::uint64_t>(s_.fail_at) < offset + total)
        throw SourceError(SourceError::Kind::kChanged, path_, "changed while read (test)");
      SourceReader::read_pieces(offset, pieces);  // one read_at per piece
    }
    void confirm_unchanged() override { r_->confirm_unchanged(); }

   private:
    RunSource& s_;
    std::unique_ptr<SourceReader> r_;
    std::string path_;
  };
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(StageChunkRuns, AFileWithChunksToSpareIsReadInRunsAndStagedWhole) {
  const std::string src = test::temp_dir("stage-runs-src");
  // 16 chunks of 1 MiB and a tail, 2 workers: runs of up to 4 (16 / 2 = 8, capped by the hint).
  const std::string data = random_bytes((16u << 20) + 12345, 21);
  std::ofstream(src + "/big.bin", std::ios::binary) << data;
  // A run needs a spare buffer the MD5 has given back and the file's next chunks at the queue's
  // front when a worker takes a chunk: on a loaded machine a copy may find neither every time,
  // so up to five copies, each checked whole; one must read a run.
  std::string dst;
  EngineOptions o;
  int runs = 0;
  for (int attempt = 0; attempt < 5 && runs == 0; ++attempt) {
    dst = test::temp_dir("stage-runs-dst-" + std::to_string(attempt));
    RunSource s(src, md5_of(data));
    o = EngineOptions{};
    o.dst = dst;
    o.threads = 2;
    o.chunk_bytes = 1 << 20;
    o.journal = dst + ".journal";
    StageFacts f = run_stage_copy(s, o);
    EXPECT_TRUE(f.failed.empty());
    EXPECT_EQ(f.files_md5_checked, 1u);
    EXPECT_LE(s.max_pieces.load(), 4);
    EXPECT_EQ(s.pieces_read.load(), 17);  // every chunk read once
    EXPECT_EQ(slurp(dst + "/big.bin"), data);
    runs = s.multi_piece_reads.load();
  }
  EXPECT_GT(runs, 0) << "no run of chunks was read in one request in five copies";
  // Each chunk is journaled with its own hash, as without runs (resume and verify need them).
  std::map<std::uint64_t, std::string> journaled;
  std::istringstream lines(slurp(o.journal));
  for (std::string line; std::getline(lines, line);) {
    const auto rec = nlohmann::json::parse(line);
    if (rec.at("t") == "chunk")
      journaled[rec.at("i").get<std::uint64_t>()] = rec.at("xxh3").get<std::string>();
  }
  ASSERT_EQ(journaled.size(), 17u);
  for (std::uint64_t k = 0; k < 17; ++k) {
    const std::size_t len = std::min<std::size_t>(1u << 20, data.size() - k * (1u << 20));
    EXPECT_EQ(journaled[k], xxh3_hex(std::as_bytes(std::span(data.data() + k * (1u << 20), len))))
        << "chunk " << k;
  }
}

TEST(StageChunkRuns, AFailedRunFailsTheFileWithoutHangingOrFinalizing) {
  const std::string src = test::temp_dir("stage-runs-fail-src");
  const std::string dst = test::temp_dir("stage-runs-fail-dst");
  const std::string data = random_bytes(16u << 20, 22);
  std::ofstream(src + "/big.bin", std::ios::binary) << data;
  RunSource s(src, md5_of(data));
  s.fail_at = (9 << 20) + 5;  // inside a run, not at its start
  EngineOptions o;
  o.dst = dst;
  o.threads = 2;
  o.chunk_bytes = 1 << 20;
  o.journal = dst + ".journal";
  StageFacts f = run_stage_copy(s, o);
  ASSERT_EQ(f.failed.size(), 1u);
  EXPECT_EQ(f.failed[0].kind, "changed");
  EXPECT_EQ(f.files_md5_checked, 0u);
  struct stat st {};
  EXPECT_NE(::stat((dst + "/big.bin").c_str(), &st), 0);  // never at its final name
}

TEST(StageChunkRuns, ASmallerFileKeepsOneReaderPerChunk) {
  const std::string src = test::temp_dir("stage-runs-small-src");
  const std::string dst = test::temp_dir("stage-runs-small-dst");
  // 6 chunks for 8 workers: no chunks to spare, so no runs (each chunk its own parallel read).
  const std::string data = random_bytes(6u << 20, 23);
  std::ofstream(src + "/mid.bin", std::ios::binary) << data;
  RunSource s(src, md5_of(data));
  EngineOptions o;
  o.dst = dst;
  o.threads = 8;
  o.chunk_bytes = 1 << 20;
  o.journal = dst + ".journal";
  StageFacts f = run_stage_copy(s, o);
  EXPECT_TRUE(f.failed.empty());
  EXPECT_EQ(s.multi_piece_reads.load(), 0);
  EXPECT_EQ(slurp(dst + "/mid.bin"), data);
}

}  // namespace
}  // namespace trainready::stage
