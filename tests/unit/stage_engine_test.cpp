// The stage engine on real directories: a copy identical to the source, the journal's records,
// resume that re-hashes what an earlier run wrote, a source changed since the manifest, a file
// that vanishes between listing and reading, and a source MD5 that matches or not.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "core/input_error.h"
#include "stage/engine.h"
#include "stage/hashing.h"
#include "stage/hsm.h"
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

// A source tree: small files in two directories, one of 3.5 chunks, one empty.
std::string make_tree(const std::string& name) {
  const std::string root = test::temp_dir(name);
  ::mkdir((root + "/d1").c_str(), 0755);
  ::mkdir((root + "/d1/d2").c_str(), 0755);
  for (int i = 0; i < 20; ++i) write_file(root + "/d1/s" + std::to_string(i), 4096 + i * 97, i);
  write_file(root + "/d1/d2/big.bin", (7u << 19) + 123, 99);  // 3.5 MiB + 123 B
  write_file(root + "/empty", 0, 0);
  return root;
}

EngineOptions options(const std::string& dst) {
  EngineOptions o;
  o.dst = dst;
  o.threads = 3;
  o.chunk_bytes = 1 << 20;
  return o;
}

void expect_same_tree(const std::string& a, const std::string& b) {
  PosixSource src(a);
  int n = 0;
  src.enumerate(
      [&](const SourceEntry& e) {
        ++n;
        EXPECT_EQ(slurp(a + "/" + e.path), slurp(b + "/" + e.path)) << e.path;
        struct stat st {};
        EXPECT_EQ(::stat((b + "/" + e.path).c_str(), &st), 0);
        EXPECT_EQ(st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, e.mtime_ns) << e.path;
        EXPECT_EQ(st.st_mode & 07777, e.mode) << e.path;
        return true;
      },
      [](const SourceError& e) { ADD_FAILURE() << e.what(); });
  EXPECT_EQ(n, 22);
}

TEST(StageEngine, CopiesATreeAndJournalsIt) {
  const std::string src = make_tree("stage-src-a");
  const std::string dst = test::temp_dir("stage-dst-a");
  PosixSource s(src);
  StageFacts f = run_stage_copy(s, options(dst));
  EXPECT_TRUE(f.failed.empty());
  EXPECT_FALSE(f.aborted);
  EXPECT_EQ(f.files_listed, 22u);
  EXPECT_EQ(f.files_copied, 22u);
  expect_same_tree(src, dst);
  const JournalState j = read_journal(default_journal(dst));
  EXPECT_TRUE(j.listed);
  EXPECT_EQ(j.chunk_bytes, 1u << 20);
  const JournalFile* big = j.find("d1/d2/big.bin");
  ASSERT_NE(big, nullptr);
  ASSERT_TRUE(big->done);
  ASSERT_EQ(big->done_chunks.size(), 4u);
  const std::string data = slurp(src + "/d1/d2/big.bin");
  EXPECT_EQ(big->done_chunks[3],
            xxh3_hex(std::as_bytes(std::span(data.data() + (3u << 20), data.size() - (3u << 20)))));
  // A second run copies nothing.
  StageFacts again = run_stage_copy(s, options(dst));
  EXPECT_EQ(again.files_copied, 0u);
  EXPECT_EQ(again.files_skipped, 22u);
}

TEST(StageEngine, ResumeReHashesWrittenChunksAndRecopiesBadOnes) {
  const std::string src = make_tree("stage-src-b");
  const std::string dst = test::temp_dir("stage-dst-b");
  PosixSource s(src);
  run_stage_copy(s, options(dst));
  // Turn the finished big file back into a part file with three chunks recorded, one of them
  // corrupted: as if a run had been killed after writing them.
  const std::string journal = default_journal(dst);
  JournalState j = read_journal(journal);
  const std::uint64_t id = j.by_path.at("d1/d2/big.bin");
  // The old fixed part name (ID.part) in the parts directory beside DST: still recognised.
  const std::string part = stage_layout(dst, "").parts + "/" + std::to_string(id) + ".part";
  ASSERT_EQ(::rename((dst + "/d1/d2/big.bin").c_str(), part.c_str()), 0);
  std::string text = slurp(journal);
  // Drop the big file's "done" record.
  std::string kept;
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);)
    if (!(l.find("\"t\":\"done\"") != std::string::npos &&
          l.find("\"id\":" + std::to_string(id) + ",") != std::string::npos))
      kept += l + "\n";
  std::ofstream(journal, std::ios::binary | std::ios::trunc) << kept;
  {
    const int fd = ::open(part.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, "X", 1, (1 << 20) + 5), 1);  // chunk 1 corrupted
    ::close(fd);
  }
  StageFacts f = run_stage_copy(s, options(dst));
  EXPECT_TRUE(f.failed.empty());
  EXPECT_EQ(f.files_copied, 1u);
  EXPECT_EQ(f.chunks_resumed, 3u);  // chunks 0, 2, 3 kept; chunk 1 copied again
  EXPECT_EQ(f.bytes_copied, 1u << 20);
  expect_same_tree(src, dst);
}

TEST(StageEngine, ASourceChangedSinceTheManifestIsNamedAndCopiedWhole) {
  const std::string src = make_tree("stage-src-c");
  const std::string dst = test::temp_dir("stage-dst-c");
  PosixSource s(src);
  run_stage_copy(s, options(dst));
  write_file(src + "/d1/s3", 5000, 1234);
  ::unlink((src + "/d1/s4").c_str());
  StageFacts f = run_stage_copy(s, options(dst));
  ASSERT_EQ(f.changed.size(), 2u);
  bool changed = false, vanished = false;
  for (const StageProblem& p : f.changed) {
    changed =
        changed || (p.path == "d1/s3" && p.message.find("size 4387 -> 5000") != std::string::npos);
    vanished = vanished || (p.path == "d1/s4" && p.kind == "vanished");
  }
  EXPECT_TRUE(changed);
  EXPECT_TRUE(vanished);
  EXPECT_EQ(slurp(src + "/d1/s3"), slurp(dst + "/d1/s3"));
}

// Deletes one file right after listing it: the read then finds it gone.
class VanishingSource : public Source {
 public:
  VanishingSource(const std::string& root, std::string victim)
      : inner_(root), root_(root), victim_(std::move(victim)) {}
  std::string describe() const override { return inner_.describe(); }
  SourceHints hints() const override { return inner_.hints(); }
  void enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                 const std::function<void(const SourceError&)>& on_problem) override {
    inner_.enumerate(
        [&](const SourceEntry& e) {
          if (e.path == victim_) ::unlink((root_ + "/" + e.path).c_str());
          return on_entry(e);
        },
        on_problem);
  }
  std::unique_ptr<SourceReader> open(const SourceEntry& e) override { return inner_.open(e); }

 private:
  PosixSource inner_;
  std::string root_, victim_;
};

TEST(StageEngine, AVanishedFileIsNamedWithItsPath) {
  const std::string src = make_tree("stage-src-d");
  const std::string dst = test::temp_dir("stage-dst-d");
  VanishingSource s(src, "d1/d2/big.bin");
  StageFacts f = run_stage_copy(s, options(dst));
  ASSERT_EQ(f.failed.size(), 1u);
  EXPECT_EQ(f.failed[0].path, "d1/d2/big.bin");
  EXPECT_EQ(f.failed[0].kind, "vanished");
  EXPECT_NE(f.failed[0].message.find("d1/d2/big.bin"), std::string::npos);
  EXPECT_NE(::access((dst + "/d1/d2/big.bin").c_str(), F_OK), 0);
  EXPECT_EQ(f.files_copied, 21u);
}

// Publishes an MD5 for every file, as Azure Blob does: the right one for all but `wrong`.
class Md5Source : public Source {
 public:
  Md5Source(const std::string& root, std::string wrong)
      : inner_(root), root_(root), wrong_(wrong) {}
  std::string describe() const override { return inner_.describe(); }
  SourceHints hints() const override { return inner_.hints(); }
  void enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                 const std::function<void(const SourceError&)>& on_problem) override {
    inner_.enumerate(
        [&](const SourceEntry& e) {
          SourceEntry m = e;
          const std::string data = slurp(root_ + "/" + e.path);
          Md5 md5;
          md5.update(std::as_bytes(std::span(data.data(), data.size())));
          m.content_md5 = e.path == wrong_ ? std::string(32, '0') : md5.hex();
          return on_entry(m);
        },
        on_problem);
  }
  std::unique_ptr<SourceReader> open(const SourceEntry& e) override { return inner_.open(e); }

 private:
  PosixSource inner_;
  std::string root_, wrong_;
};

TEST(StageEngine, SourceMd5IsComparedForSmallAndChunkedFiles) {
  const std::string src = make_tree("stage-src-e");
  const std::string dst = test::temp_dir("stage-dst-e");
  Md5Source s(src, "d1/s7");
  StageFacts f = run_stage_copy(s, options(dst));
  EXPECT_EQ(f.files_md5_checked, 21u);  // the chunked one too, fed in chunk order
  ASSERT_EQ(f.failed.size(), 1u);
  EXPECT_EQ(f.failed[0].kind, "md5-mismatch");
  EXPECT_NE(::access((dst + "/d1/s7").c_str(), F_OK), 0);  // never at its final name
}

TEST(StageHashing, KnownDigests) {
  Md5 m;
  m.update(std::as_bytes(std::span("abc", 3)));
  EXPECT_EQ(m.hex(), "900150983cd24fb0d6963f7d28e17f72");  // RFC 1321, appendix A.5
  EXPECT_EQ(xxh3_hex({}), "2d06800538d394c2");             // XXH3_64bits of empty input
}

TEST(StageJournal, ATornLastLineIsIgnoredAndABadLineNamed) {
  const std::string dir = test::temp_dir("stage-journal");
  const std::string p = dir + "/j.jsonl";
  std::ofstream(p)
      << "{\"t\":\"stage-journal\",\"v\":1,\"source\":\"/s\",\"chunk_bytes\":1048576}\n"
         "{\"t\":\"file\",\"id\":0,\"path\":\"a\",\"size\":1,\"mtime_ns\":5,\"etag\":\"\","
         "\"md5\":\"\",\"mode\":420}\n{\"t\":\"done\",\"id\":0,\"xx";
  JournalState j = read_journal(p);
  ASSERT_NE(j.find("a"), nullptr);
  EXPECT_FALSE(j.find("a")->done);
  EXPECT_EQ(j.next_id, 1u);
  std::ofstream(p, std::ios::app) << "\n{\"t\":\"chunk\",\"id\":7,\"i\":0,\"xxh3\":\"00\"}\n";
  try {
    read_journal(p);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 3);
  }
}

TEST(StageShard, SplitsByBytesAndCoversEverythingOnce) {
  std::vector<SourceEntry> all;
  for (int i = 0; i < 30; ++i) {
    SourceEntry e;
    e.path = "f" + std::to_string(100 + i);
    e.size = static_cast<std::uint64_t>((i % 5) + 1) * 1000;
    all.push_back(e);
  }
  std::uint64_t total = 0, max_file = 5000;
  for (const auto& e : all) total += e.size;
  std::set<std::string> seen;
  for (int r = 0; r < 3; ++r) {
    std::uint64_t bytes = 0;
    for (const SourceEntry& e : shard_by_bytes(all, r, 3)) {
      EXPECT_TRUE(seen.insert(e.path).second) << e.path;
      bytes += e.size;
    }
    EXPECT_LE(bytes, total / 3 + max_file);
    EXPECT_GE(bytes + max_file, total / 3);
  }
  EXPECT_EQ(seen.size(), all.size());
}

TEST(StageHsm, ParsesLfsHsmState) {
  const auto v = parse_hsm_state(
      "/lustre/a.bin: (0x0000000d) released exists archived, archive_id:1\n"
      "/lustre/b: c.bin: (0x00000009) exists archived, archive_id:1\n"
      "garbage\n");
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].path, "/lustre/a.bin");
  EXPECT_TRUE(v[0].released);
  EXPECT_EQ(v[1].path, "/lustre/b: c.bin");
  EXPECT_FALSE(v[1].released);
}

}  // namespace
}  // namespace trainready::stage
