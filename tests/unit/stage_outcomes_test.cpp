// Honest outcomes of `stage` (issue 29): whatever was not copied and verified is named as not
// staged (a file changed while it was read, a link not followed, an entry too large to stage, an
// unreadable directory under --shard), sizes and chunk sizes are range-checked instead of
// aborting, and the counts of the report agree with each other.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <limits>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "core/input_error.h"
#include "report/text/stage_section.h"
#include "stage/bounds.h"
#include "stage/engine.h"
#include "stage/hashing.h"
#include "stage/journal.h"
#include "stage/posix_source.h"
#include "stage/safe_path.h"
#include "stage/shard.h"
#include "support/paths.h"

namespace trainready::stage {
namespace {

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& p, std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  std::ofstream(p, std::ios::binary) << s;
}

EngineOptions options(const std::string& dst) {
  EngineOptions o;
  o.dst = dst;
  o.threads = 2;
  o.chunk_bytes = 1 << 20;
  return o;
}

const StageProblem* find_problem(const std::vector<StageProblem>& v, const std::string& path) {
  for (const StageProblem& p : v)
    if (p.path == path) return &p;
  return nullptr;
}

// Appends to `victim` right after opening it, as a writer would while the copy reads it: the
// reader's fstat after the last read sees another size (the real POSIX check, not a fake).
class GrowingSource : public Source {
 public:
  GrowingSource(const std::string& root, std::string victim)
      : inner_(root), root_(root), victim_(std::move(victim)) {}
  std::string describe() const override { return inner_.describe(); }
  SourceHints hints() const override { return inner_.hints(); }
  void enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                 const std::function<void(const SourceError&)>& on_problem) override {
    inner_.enumerate(on_entry, on_problem);
  }
  std::unique_ptr<SourceReader> open(const SourceEntry& e) override {
    auto r = inner_.open(e);
    if (e.path == victim_) std::ofstream(root_ + "/" + e.path, std::ios::app) << "more";
    return r;
  }

 private:
  PosixSource inner_;
  std::string root_, victim_;
};

TEST(StageOutcomes, AFileChangedDuringTheCopyIsNotStagedAndCountsAsFailed) {
  for (const std::size_t size : {std::size_t{5000}, std::size_t{(3u << 20) + 7}}) {
    const std::string src = test::temp_dir("outcomes-grow-src");
    const std::string dst = test::temp_dir("outcomes-grow-dst");
    write_file(src + "/keep", 100, 1);
    write_file(src + "/grows", size, 2);
    GrowingSource s(src, "grows");
    const StageFacts f = run_stage_copy(s, options(dst));
    const StageProblem* p = find_problem(f.failed, "grows");
    ASSERT_NE(p, nullptr) << "size " << size;
    EXPECT_EQ(p->kind, "changed");
    EXPECT_NE(find_problem(f.changed, "grows"), nullptr);
    EXPECT_EQ(f.files_copied, 1u);
    EXPECT_NE(::access((dst + "/grows").c_str(), F_OK), 0);
    EXPECT_EQ(slurp(dst + "/keep"), slurp(src + "/keep"));
  }
}

// --- bounds (D6, D7, D15) --------------------------------------------------------------------

TEST(StageBounds, ChunkArithmeticNeverWraps) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(chunks_of(0, 1 << 20), 0u);
  EXPECT_EQ(chunks_of(1, 1 << 20), 1u);
  EXPECT_EQ(chunks_of(1 << 20, 1 << 20), 1u);
  EXPECT_EQ(chunks_of((1 << 20) + 1, 1 << 20), 2u);
  // (size + chunk - 1) / chunk wrapped this to 0: a blob silently never copied.
  EXPECT_EQ(chunks_of(kMax, 1 << 20), (kMax >> 20) + 1);
  EXPECT_EQ(chunks_of(kMax, kMax), 1u);
}

TEST(StageBounds, ChunkAndEntrySizesAreRangeChecked) {
  EXPECT_EQ(chunk_size_problem(16u << 20), "");
  EXPECT_EQ(chunk_size_problem(kMaxChunkBytes), "");
  EXPECT_NE(chunk_size_problem(kMaxChunkBytes + 1), "");
  EXPECT_NE(chunk_size_problem(100ull << 40), "");  // --chunk-size 100T
  EXPECT_NE(chunk_size_problem(0), "");
  EXPECT_EQ(kMaxEntryBytes, 209715200000000ull);  // 50,000 x 4,000 MiB
  EXPECT_EQ(entry_size_problem("f", kMaxEntryBytes, 0), "");
  EXPECT_NE(entry_size_problem("f", kMaxEntryBytes + 1, 0).find("f: listed with"),
            std::string::npos);
  EXPECT_NE(entry_size_problem("f", (1ull << 63) - 1, 0), "");
  EXPECT_NE(entry_size_problem("f", 2000, 1000).find("larger than the whole destination"),
            std::string::npos);
  EXPECT_EQ(entry_size_problem("f", 1000, 1000), "");
  EXPECT_GT(filesystem_capacity(test::temp_dir("outcomes-cap")), 0u);
  EXPECT_EQ(filesystem_capacity("/nonexistent/x"), 0u);
}

// Lists what a hostile Blob listing could say (Content-Length 2^63-1 and 2^64-1) beside a fine
// entry; reading anything but the fine entry is a test failure.
class HugeListingSource : public Source {
 public:
  std::string describe() const override { return "huge-listing"; }
  SourceHints hints() const override { return {}; }
  void enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                 const std::function<void(const SourceError&)>&) override {
    for (const auto& [path, size] : std::vector<std::pair<std::string, std::uint64_t>>{
             {"huge63.bin", (1ull << 63) - 1},
             {"max64.bin", std::numeric_limits<std::uint64_t>::max()},
             {"fine.bin", 10}}) {
      SourceEntry e;
      e.path = path;
      e.size = size;
      if (!on_entry(e)) return;
    }
  }
  std::unique_ptr<SourceReader> open(const SourceEntry& e) override {
    struct Reader : SourceReader {
      void read_at(std::uint64_t, std::span<std::byte> buf) override {
        for (std::byte& b : buf) b = std::byte{'x'};
      }
      void confirm_unchanged() override {}
    };
    EXPECT_EQ(e.path, "fine.bin");
    return std::make_unique<Reader>();
  }
};

TEST(StageBounds, ListedSizesOutOfRangeAreNamedNeverAbortedOrSkipped) {
  const std::string dst = test::temp_dir("outcomes-huge-dst");
  HugeListingSource s;
  const StageFacts f = run_stage_copy(s, options(dst));  // aborted the process before
  EXPECT_FALSE(f.aborted) << f.abort_reason;
  for (const char* p : {"huge63.bin", "max64.bin"}) {
    const StageProblem* pr = find_problem(f.failed, p);
    ASSERT_NE(pr, nullptr) << p;
    EXPECT_EQ(pr->kind, "too-large");
    EXPECT_FALSE(pr->listed);
  }
  EXPECT_EQ(f.files_listed, 1u);
  EXPECT_EQ(f.bytes_listed, 10u);  // the sum wrapped to 9 before
  EXPECT_EQ(f.files_copied, 1u);
  EXPECT_EQ(slurp(dst + "/fine.bin"), "xxxxxxxxxx");
}

TEST(StageBounds, AFileLargerThanTheDestinationIsNamed) {
  // A sparse file one block larger than the whole file system of DST (both in the test's temp
  // directory): it can never fit, whatever is freed, so it is named rather than stopping the run
  // as "the destination is full".
  const std::string src = test::temp_dir("outcomes-sparse-src");
  const std::string dst = test::temp_dir("outcomes-sparse-dst");
  const std::uint64_t cap = filesystem_capacity(dst);
  ASSERT_GT(cap, 0u);
  write_file(src + "/small", 10, 3);
  const int fd = ::open((src + "/sparse").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  const bool sparse = ::ftruncate(fd, static_cast<off_t>(cap + 4096)) == 0;
  ::close(fd);
  ASSERT_TRUE(sparse) << "the file system takes no sparse file of " << cap + 4096 << " bytes";
  PosixSource s(src);
  const StageFacts f = run_stage_copy(s, options(dst));
  EXPECT_FALSE(f.aborted) << f.abort_reason;
  const StageProblem* p = find_problem(f.failed, "sparse");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->kind, "too-large");
  EXPECT_EQ(f.files_copied, 1u);
}

TEST(StageBounds, AChunkSizeOutOfRangeIsAnInputErrorFromOptionOrJournal) {
  const std::string src = test::temp_dir("outcomes-chunk-src");
  write_file(src + "/a", 10, 4);
  PosixSource s(src);
  EngineOptions o = options(test::temp_dir("outcomes-chunk-dst"));
  o.chunk_bytes = 100ull << 40;  // --chunk-size 100T: every worker's allocation aborted
  EXPECT_THROW(run_stage_copy(s, o), InputError);
  // A journal that records one (written by an older build) is refused with its line, not read.
  const std::string dst = test::temp_dir("outcomes-chunk-dst2");
  ::mkdir(stage_layout(dst, "").state_dir.c_str(), 0755);
  std::ofstream(default_journal(dst))
      << R"({"t":"stage-journal","v":1,"source":")" << src << R"(","chunk_bytes":109951162777600})"
      << "\n";
  try {
    read_journal(default_journal(dst));
    ADD_FAILURE() << "a journal with a 100 TiB chunk size was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("chunk size"), std::string::npos) << e.what();
  }
  EXPECT_THROW(run_stage_copy(s, options(dst)), InputError);
}

// --- links (D9) -------------------------------------------------------------------------------

// huggingface_hub's cache, as it lays a model out: blobs named by hash, snapshots/REVISION/ of
// relative links into ../../blobs (one more ../ per subdirectory), refs/main naming the revision.
struct HfCache {
  std::string repo, snapshot;
  std::map<std::string, std::string> files;  // path in the snapshot -> content
};

HfCache make_hf_cache(const std::string& name) {
  HfCache h;
  h.repo = test::temp_dir(name) + "/models--acme--tiny-llm";
  const std::string rev = "3f1c2b7e9d0a4c5b6e7f8091a2b3c4d5e6f70819";
  h.snapshot = h.repo + "/snapshots/" + rev;
  ::mkdir(h.repo.c_str(), 0755);
  for (const char* d : {"/blobs", "/refs", "/snapshots"}) ::mkdir((h.repo + d).c_str(), 0755);
  ::mkdir(h.snapshot.c_str(), 0755);
  ::mkdir((h.snapshot + "/tokenizer").c_str(), 0755);
  std::ofstream(h.repo + "/refs/main") << rev;
  const std::vector<std::tuple<std::string, std::string, std::string>> blobs = {
      // (file, blob name: SHA-256 for LFS files, git SHA-1 for small ones, content)
      {"model.safetensors", std::string(64, 'a'), std::string(3u << 20, 'w') + "end"},
      {"config.json", std::string(40, 'b'), R"({"model_type":"llama"})"},
      {"tokenizer/tokenizer.json", std::string(40, 'c'), R"({"version":"1.0"})"}};
  for (const auto& [file, blob, content] : blobs) {
    std::ofstream(h.repo + "/blobs/" + blob, std::ios::binary) << content;
    const std::string up = file.find('/') == std::string::npos ? "../../" : "../../../";
    EXPECT_EQ(::symlink((up + "blobs/" + blob).c_str(), (h.snapshot + "/" + file).c_str()), 0);
    h.files[file] = content;
  }
  return h;
}

TEST(StageLinks, AHuggingFaceSnapshotIsNamedWithoutTheFlagAndStagedWithIt) {
  const HfCache h = make_hf_cache("outcomes-hf");
  {
    PosixSource s(h.snapshot);  // was: 0 files, "complete"
    const StageFacts f = run_stage_copy(s, options(test::temp_dir("outcomes-hf-dst0")));
    EXPECT_EQ(f.files_listed, 0u);
    ASSERT_EQ(f.failed.size(), 3u);
    for (const StageProblem& p : f.failed) {
      EXPECT_EQ(p.kind, "symlink");
      EXPECT_FALSE(p.listed);
      EXPECT_NE(p.message.find("Hugging Face"), std::string::npos) << p.message;
      EXPECT_NE(p.message.find("--follow-symlinks"), std::string::npos) << p.message;
    }
    EXPECT_EQ(f.not_regular.size(), 3u);
  }
  PosixOptions follow;
  follow.follow_symlinks = true;
  PosixSource s(h.snapshot, follow);
  const std::string dst = test::temp_dir("outcomes-hf-dst1");
  const StageFacts f = run_stage_copy(s, options(dst));
  EXPECT_TRUE(f.failed.empty()) << f.failed.front().message;
  EXPECT_EQ(f.files_copied, 3u);
  for (const auto& [file, content] : h.files) {
    struct stat st {};
    ASSERT_EQ(::lstat((dst + "/" + file).c_str(), &st), 0) << file;
    EXPECT_TRUE(S_ISREG(st.st_mode)) << file << ": a regular file, not a link";
    EXPECT_EQ(slurp(dst + "/" + file), content) << file;
  }
  // A rerun skips them all: the version of a followed link is its target's.
  const StageFacts again = run_stage_copy(s, options(dst));
  EXPECT_EQ(again.files_skipped, 3u);
  EXPECT_TRUE(again.failed.empty());
}

TEST(StageLinks, FollowingRefusesLoopsAndDanglingLinksAndNeverEntersDst) {
  const std::string src = test::temp_dir("outcomes-loop-src");
  const std::string outside = test::temp_dir("outcomes-loop-outside");
  ::mkdir((src + "/d").c_str(), 0755);
  write_file(src + "/d/f", 100, 5);
  write_file(outside + "/o", 50, 6);
  ASSERT_EQ(::symlink("..", (src + "/d/up").c_str()), 0);            // a loop
  ASSERT_EQ(::symlink("nowhere", (src + "/dangling").c_str()), 0);   // a link to nothing
  ASSERT_EQ(::symlink(outside.c_str(), (src + "/out").c_str()), 0);  // outside SRC: followed
  ASSERT_EQ(::mkfifo((src + "/fifo").c_str(), 0644), 0);
  const std::string dst = test::temp_dir("outcomes-loop-dst");
  ASSERT_EQ(::symlink(dst.c_str(), (src + "/to-dst").c_str()), 0);  // DST through a link
  PosixOptions follow;
  follow.follow_symlinks = true;
  follow.never_enter = dst;
  PosixSource s(src, follow);
  const StageFacts f = run_stage_copy(s, options(dst));
  EXPECT_EQ(f.files_copied, 2u);
  EXPECT_EQ(slurp(dst + "/out/o"), slurp(outside + "/o"));
  EXPECT_EQ(slurp(dst + "/d/f"), slurp(src + "/d/f"));
  std::map<std::string, std::string> kinds;
  for (const StageProblem& p : f.failed) kinds[p.path] = p.kind;
  EXPECT_EQ(kinds["d/up"], "symlink");
  EXPECT_EQ(kinds["dangling"], "symlink");
  EXPECT_EQ(kinds["fifo"], "special");
  EXPECT_EQ(kinds["to-dst"], "symlink");
  EXPECT_EQ(kinds.size(), 4u);
}

TEST(StageLinks, RecognisesHubBlobLinksOnly) {
  EXPECT_TRUE(hugging_face_blob_link("../../blobs/" + std::string(64, 'e')));
  EXPECT_TRUE(hugging_face_blob_link("../../../blobs/" + std::string(40, '0')));
  EXPECT_FALSE(hugging_face_blob_link("blobs/" + std::string(40, '0')));
  EXPECT_FALSE(hugging_face_blob_link("../../blobs/" + std::string(39, '0')));
  EXPECT_FALSE(hugging_face_blob_link("../../blobs/" + std::string(40, 'G')));
  EXPECT_FALSE(hugging_face_blob_link("../data/x"));
}

// --- --shard (D10) ----------------------------------------------------------------------------

TEST(StageShard, TheListingsProblemsReachRankZerosOutcome) {
  const std::string src = test::temp_dir("outcomes-shard-src");
  write_file(src + "/a", 100, 7);
  write_file(src + "/b", 100, 8);
  ASSERT_EQ(::symlink("a", (src + "/link").c_str()), 0);
  ASSERT_EQ(::mkfifo((src + "/fifo").c_str(), 0644), 0);
  PosixSource s(src);
  std::uint64_t copied = 0;
  for (int rank = 0; rank < 2; ++rank) {
    auto part = shard_source(s, rank, 2);
    const StageFacts f = run_stage_copy(*part, options(test::temp_dir("outcomes-shard-dst")));
    copied += f.files_copied;
    if (rank == 0) {
      ASSERT_EQ(f.failed.size(), 2u);  // the no-op callback dropped them
      EXPECT_NE(find_problem(f.failed, "link"), nullptr);
      EXPECT_NE(find_problem(f.failed, "fifo"), nullptr);
    } else {
      EXPECT_TRUE(f.failed.empty());  // said once for the job
    }
  }
  EXPECT_EQ(copied, 2u);
}

// --- counts that agree (D27) --------------------------------------------------------------------

TEST(StageCounts, EveryListedFileEndsOneWayAndBytesReadForFailuresAreNotCopied) {
  const std::string src = test::temp_dir("outcomes-count-src");
  for (int i = 0; i < 5; ++i) write_file(src + "/f" + std::to_string(i), 1000 + i, 10 + i);
  write_file(src + "/grows", 2u << 20, 20);  // chunked; read whole, then found changed
  ASSERT_EQ(::symlink("f0", (src + "/link").c_str()), 0);
  GrowingSource s(src, "grows");
  const StageFacts f = run_stage_copy(s, options(test::temp_dir("outcomes-count-dst")));
  std::uint64_t failed_files = 0, left_out = 0;
  for (const StageProblem& p : f.failed) (p.listed ? failed_files : left_out) += 1;
  EXPECT_EQ(f.files_listed, 6u);
  EXPECT_EQ(failed_files, 1u);
  EXPECT_EQ(left_out, 1u);
  EXPECT_EQ(f.files_listed, f.files_copied + f.files_skipped + failed_files);
  std::uint64_t small = 0;
  for (int i = 0; i < 5; ++i) small += 1000 + i;
  EXPECT_EQ(f.bytes_copied, small);  // the grown file's bytes were read, not copied
  EXPECT_GE(f.bytes_read, small);
}

// Blobs `a` and `a/b` (both possible in a Blob container, not on a POSIX DST), each with its
// Content-MD5: the second cannot be put below a file, so it is not staged and its MD5, although
// it matched, is not counted ("md5: 36 files matched" when 35 were staged).
class ConflictSource : public Source {
 public:
  std::string describe() const override { return "conflict"; }
  SourceHints hints() const override { return {}; }
  void enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                 const std::function<void(const SourceError&)>&) override {
    const std::string data(5, 'x');
    Md5 md5;
    md5.update(std::as_bytes(std::span(data.data(), data.size())));
    for (const char* p : {"a", "a/b"}) {
      SourceEntry e;
      e.path = p;
      e.size = data.size();
      e.content_md5 = md5.hex();
      if (!on_entry(e)) return;
    }
  }
  std::unique_ptr<SourceReader> open(const SourceEntry&) override {
    struct Reader : SourceReader {
      void read_at(std::uint64_t, std::span<std::byte> buf) override {
        for (std::byte& b : buf) b = std::byte{'x'};
      }
      void confirm_unchanged() override {}
    };
    return std::make_unique<Reader>();
  }
};

TEST(StageCounts, AnMd5CountsAsCheckedOnlyForAStagedFile) {
  ConflictSource s;
  const StageFacts f = run_stage_copy(s, options(test::temp_dir("outcomes-md5-dst")));
  EXPECT_EQ(f.files_copied, 1u);
  ASSERT_EQ(f.failed.size(), 1u);
  EXPECT_EQ(f.failed[0].path, "a/b");
  EXPECT_EQ(f.files_md5_checked, f.files_copied);
  EXPECT_EQ(f.bytes_copied, 5u);
}

TEST(StageCounts, TheTextReportSaysReadApartAndNoCostPerGbForATinyCopy) {
  StageFacts s;
  s.source = "/src";
  s.destination = "/dst";
  s.files_listed = 2;
  s.files_copied = 1;
  s.bytes_copied = 8;
  s.bytes_read = 41900000;
  s.seconds = 0.5;
  s.cpu_seconds = 2.6;
  std::string out = render_stage_text(s);
  EXPECT_NE(out.find("copied      1 file, 8.00 B"), std::string::npos) << out;
  EXPECT_NE(out.find("41.9 MB from the source in all"), std::string::npos) << out;
  EXPECT_EQ(out.find("per GB"), std::string::npos) << out;  // was "(327750 s per GB)"-like
  s.bytes_copied = s.bytes_read = 2000000000;
  out = render_stage_text(s);
  EXPECT_NE(out.find("(1.30 s per GB)"), std::string::npos) << out;
  EXPECT_EQ(out.find("in all"), std::string::npos) << out;
}

}  // namespace
}  // namespace trainready::stage
