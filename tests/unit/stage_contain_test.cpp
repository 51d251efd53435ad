// Containment, one writer, the journal's place and bounds, and verify's completeness (issue 29:
// D1-D5, D11-D13, D20, D32): each test below fails on the code before the fix.
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "core/input_error.h"
#include "stage/dest_file.h"
#include "stage/dest_lock.h"
#include "stage/engine.h"
#include "stage/journal.h"
#include "stage/posix_source.h"
#include "stage/safe_path.h"
#include "stage/source.h"
#include "stage/verify.h"
#include "support/paths.h"
#include "support/stage_bytes.h"

namespace trainready::stage {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void put(const std::string& p, const std::string& data) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << data;
}

EngineOptions options(const std::string& dst) {
  EngineOptions o;
  o.dst = dst;
  o.threads = 2;
  o.chunk_bytes = 1 << 20;
  return o;
}

bool any_failed(const StageFacts& f, const std::string& path, const std::string& words) {
  for (const StageProblem& p : f.failed)
    if (p.path == path && p.message.find(words) != std::string::npos) return true;
  return false;
}

// Files below `root`, relative, links included (not followed).
std::set<std::string> listing(const std::string& root) {
  std::set<std::string> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it)
    if (!it->is_directory() || it->is_symlink())
      out.insert(fs::relative(it->path(), root).string());
  return out;
}

class StageContain : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { set_openat2_allowed(GetParam()); }
  void TearDown() override { set_openat2_allowed(true); }
};

// D1: a symbolic link to a directory elsewhere, planted in DST where the source has a directory.
TEST_P(StageContain, ASymlinkedDirectoryInDstIsNeverWrittenThrough) {
  const std::string base = test::temp_dir(GetParam() ? "contain-d1-a" : "contain-d1-b");
  fs::create_directories(base + "/src/data/deep");
  fs::create_directories(base + "/victim/deep");
  fs::create_directories(base + "/dst");
  put(base + "/src/data/f", "new");
  put(base + "/src/data/deep/g", "new2");
  put(base + "/src/top", "top");
  put(base + "/victim/f", "precious");
  put(base + "/victim/deep/g", "precious2");
  fs::create_directory_symlink(base + "/victim", base + "/dst/data");
  PosixSource s(base + "/src");
  const StageFacts f = run_stage_copy(s, options(base + "/dst"));
  EXPECT_EQ(slurp(base + "/victim/f"), "precious");
  EXPECT_EQ(slurp(base + "/victim/deep/g"), "precious2");
  EXPECT_EQ(listing(base + "/victim"), (std::set<std::string>{"f", "deep/g"}));
  EXPECT_TRUE(any_failed(f, "data/f", "is a symbolic link")) << f.failed.size();
  EXPECT_TRUE(any_failed(f, "data/deep/g", "is a symbolic link"));
  EXPECT_EQ(slurp(base + "/dst/top"), "top");  // the others are staged
  EXPECT_TRUE(fs::is_symlink(base + "/dst/data"));
}

// D2: a link planted at a part file's name (the old fixed name, and a file the journal says is
// resumable from its chunks).
TEST_P(StageContain, APlantedPartFileLinkIsNeverWrittenThrough) {
  const std::string base = test::temp_dir(GetParam() ? "contain-d2-a" : "contain-d2-b");
  fs::create_directories(base + "/src");
  fs::create_directories(base + "/victim");
  const std::string big = random_bytes(3u << 20, 5);
  put(base + "/src/big", big);
  put(base + "/src/f", "new");
  put(base + "/victim/conf", "precious");
  PosixSource s(base + "/src");
  const std::string dst = base + "/dst";
  {
    // A first run, then the big file turned back into "not done, chunk 0 written".
    run_stage_copy(s, options(dst));
    const std::string journal = default_journal(dst);
    std::string kept;
    std::istringstream lines(slurp(journal));
    for (std::string l; std::getline(lines, l);)
      if (l.find("\"t\":\"done\"") == std::string::npos) kept += l + "\n";
    const JournalState j = read_journal(journal);
    const std::uint64_t id = j.by_path.at("big");
    put(journal, kept);
    std::ofstream(journal, std::ios::app)
        << "{\"i\":0,\"id\":" << id << ",\"t\":\"chunk\",\"xxh3\":\"0000000000000000\"}\n";
    const std::string parts = stage_layout(dst, "").parts;
    ASSERT_TRUE(fs::is_directory(parts));
    for (const std::string& n :
         std::set<std::string>{std::to_string(id) + ".part", "0.part", "1.part", "2.part"})
      fs::create_symlink(base + "/victim/conf", parts + "/" + n);
    fs::remove(dst + "/big");
    fs::remove(dst + "/f");
  }
  const StageFacts f = run_stage_copy(s, options(dst));
  EXPECT_TRUE(f.failed.empty());
  EXPECT_EQ(slurp(base + "/victim/conf"), "precious");
  EXPECT_FALSE(fs::is_symlink(dst + "/big"));
  EXPECT_FALSE(fs::is_symlink(dst + "/f"));
  EXPECT_EQ(slurp(dst + "/big"), big);
  EXPECT_EQ(slurp(dst + "/f"), "new");
}

INSTANTIATE_TEST_SUITE_P(Openat2AndFallback, StageContain, ::testing::Bool());

// Small files are written as unnamed files and linked into place (stage/dest_file.h); where that
// cannot be done (a name already there, a file system without O_TMPFILE: switched off here) they
// go through a part file and a rename. Either way: the source's bytes, mode and mtime at the
// final name, a file or link already there replaced (never written through), nothing left in the
// parts directory.
TEST(StageUnnamed, SmallFilesAreLinkedIntoPlaceOrRenamedFromAPart) {
  for (const bool unnamed : {true, false}) {
    set_unnamed_files_allowed(unnamed);
    const std::string base = test::temp_dir(unnamed ? "unnamed-on" : "unnamed-off");
    fs::create_directories(base + "/src/d/e");
    fs::create_directories(base + "/victim");
    fs::create_directories(base + "/dst/d");
    put(base + "/src/top", "top");
    put(base + "/src/d/a", random_bytes(70000, 3));
    put(base + "/src/d/b", "new b");
    put(base + "/src/d/c", "new c");
    put(base + "/src/d/e/empty", "");
    ::chmod((base + "/src/d/a").c_str(), 0640);
    put(base + "/victim/conf", "precious");
    put(base + "/dst/d/b", "old b, longer than the new one");
    fs::create_symlink(base + "/victim/conf", base + "/dst/d/c");
    PosixSource s(base + "/src");
    const std::string dst = base + "/dst";
    const StageFacts f = run_stage_copy(s, options(dst));
    set_unnamed_files_allowed(true);
    EXPECT_TRUE(f.failed.empty()) << unnamed;
    EXPECT_EQ(f.files_copied, 5u) << unnamed;
    EXPECT_EQ(slurp(base + "/victim/conf"), "precious") << unnamed;
    EXPECT_FALSE(fs::is_symlink(dst + "/d/c")) << unnamed;
    EXPECT_EQ(listing(dst), listing(base + "/src")) << unnamed;
    for (const std::string rel : {"top", "d/a", "d/b", "d/c", "d/e/empty"}) {
      EXPECT_EQ(slurp(dst + "/" + rel), slurp(base + "/src/" + rel)) << rel << " " << unnamed;
      struct stat a {
      }, b{};
      ASSERT_EQ(::stat((base + "/src/" + rel).c_str(), &a), 0);
      ASSERT_EQ(::stat((dst + "/" + rel).c_str(), &b), 0);
      EXPECT_EQ(a.st_mode, b.st_mode) << rel << " " << unnamed;
      EXPECT_EQ(a.st_mtim.tv_sec, b.st_mtim.tv_sec) << rel << " " << unnamed;
      EXPECT_EQ(a.st_mtim.tv_nsec, b.st_mtim.tv_nsec) << rel << " " << unnamed;
      EXPECT_EQ(b.st_nlink, 1u) << rel << " " << unnamed;
    }
    const std::string parts = stage_layout(dst, "").parts;
    EXPECT_TRUE(!fs::exists(parts) || fs::is_empty(parts)) << unnamed;
    VerifyOptions v;
    v.dst = dst;
    const StageFacts checked = run_stage_verify(v);
    EXPECT_TRUE(checked.failed.empty()) << unnamed;
    EXPECT_EQ(checked.files_verified, 5u) << unnamed;
  }
}

// From now on, in the calling thread (and threads it starts), linkat(..., AT_EMPTY_PATH) fails
// with ENOENT, as it does for a process without CAP_DAC_READ_SEARCH before Linux 6.10.
bool refuse_empty_path_links() {
  // seccomp_data: nr, arch, instruction_pointer, args[6]; the low half of args[4] (flags).
  constexpr std::uint32_t flags_low =
      offsetof(seccomp_data, args) + 4 * sizeof(std::uint64_t) +
      (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 0 : sizeof(std::uint32_t));
  sock_filter f[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_linkat, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, flags_low),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOENT),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof f / sizeof f[0]), f};
  return ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

// Where linkat(AT_EMPTY_PATH) is refused, small files are linked through /proc/self/fd/N, and the
// run remembers it (UnnamedFiles::empty_path), so the next file goes there without the refused
// call.
TEST(StageUnnamed, ARefusedEmptyPathLinkIsRememberedForTheRun) {
  const std::string base = test::temp_dir("unnamed-empty-path");
  fs::create_directories(base + "/dst/d");
  const std::string payload = "small";
  const auto bytes = std::as_bytes(std::span(payload.data(), payload.size()));
  bool filtered = false, first = false, second = false, remembered = true;
  std::thread t([&] {  // the filter stays with this thread
    filtered = refuse_empty_path_links();
    if (!filtered) return;
    DestTree dst(base + "/dst");
    ParentDirs dirs;
    UnnamedFiles unnamed;
    first = write_whole_unnamed(dst, dirs, "d/a", bytes, 0644, 0, unnamed);
    remembered = unnamed.empty_path.load();
    second = write_whole_unnamed(dst, dirs, "d/b", bytes, 0644, 0, unnamed);
  });
  t.join();
  // The test needs both; a machine without them fails it loudly rather than skipping it.
  ASSERT_TRUE(filtered) << "could not install the seccomp filter (prctl NO_NEW_PRIVS + SECCOMP)";
  ASSERT_TRUE(fs::exists("/proc/self/fd")) << "no /proc/self/fd";
  EXPECT_TRUE(first);
  EXPECT_TRUE(second);
  EXPECT_FALSE(remembered);
  EXPECT_EQ(slurp(base + "/dst/d/a"), payload);
  EXPECT_EQ(slurp(base + "/dst/d/b"), payload);
}

TEST(StageContainPaths, OpenBeneathRefusesLinksAndEscapes) {
  const std::string base = test::temp_dir("contain-beneath");
  fs::create_directories(base + "/root/a");
  fs::create_directories(base + "/out");
  put(base + "/out/secret", "s");
  put(base + "/root/a/ok", "ok");
  fs::create_directory_symlink(base + "/out", base + "/root/l");
  fs::create_symlink(base + "/out/secret", base + "/root/a/fl");
  const int root = ::open((base + "/root").c_str(), O_RDONLY | O_DIRECTORY);
  for (bool openat2 : {true, false}) {
    set_openat2_allowed(openat2);
    int fd = open_beneath(root, "a/ok", O_RDONLY);
    EXPECT_GE(fd, 0);
    ::close(fd);
    EXPECT_EQ(open_beneath(root, "l/secret", O_RDONLY), -1);
    EXPECT_TRUE(errno == ELOOP || errno == ENOTDIR) << errno;  // a link where a directory is
    EXPECT_EQ(open_beneath(root, "a/fl", O_RDONLY), -1);
    EXPECT_EQ(errno, ELOOP);
    EXPECT_EQ(open_beneath(root, "../out/secret", O_RDONLY), -1);
    EXPECT_EQ(open_beneath(root, "a/../../out/secret", O_RDONLY), -1);
  }
  set_openat2_allowed(true);
  ::close(root);
}

// Issue 28's item: the journal and parts live beside DST; DST holds exactly the source's files,
// and a journal of the old layout inside DST is moved out and resumed from.
TEST(StageLayout, TheJournalLivesOutsideDstAndAnOldOneIsMovedOut) {
  const std::string base = test::temp_dir("contain-layout");
  fs::create_directories(base + "/src/d");
  put(base + "/src/d/a.jsonl", "{}\n");
  put(base + "/src/b", random_bytes(3u << 20, 9));
  PosixSource s(base + "/src");
  const std::string dst = base + "/dst";
  const StageFacts f = run_stage_copy(s, options(dst));
  EXPECT_TRUE(f.failed.empty());
  EXPECT_EQ(listing(dst), listing(base + "/src"));
  EXPECT_EQ(f.journal, base + "/.dst.trainready-stage/journal.jsonl");
  EXPECT_TRUE(fs::exists(f.journal));
  // The old layout: DST/.trainready-stage/journal.jsonl. Moved beside DST, then nothing copied.
  const std::string state = base + "/.dst.trainready-stage";
  fs::create_directories(dst + "/.trainready-stage/parts");
  fs::rename(state + "/journal.jsonl", dst + "/.trainready-stage/journal.jsonl");
  EXPECT_EQ(journal_for_verify(dst, ""), dst + "/.trainready-stage/journal.jsonl");
  VerifyOptions v;
  v.dst = dst;
  EXPECT_TRUE(run_stage_verify(v).failed.empty());  // verify reads the old one where it is
  const StageFacts again = run_stage_copy(s, options(dst));
  EXPECT_EQ(again.files_copied, 0u);
  EXPECT_EQ(again.files_skipped, 2u);
  EXPECT_TRUE(fs::exists(state + "/journal.jsonl"));
  EXPECT_FALSE(fs::exists(dst + "/.trainready-stage"));
  EXPECT_EQ(listing(dst), listing(base + "/src"));
}

// D32: a missing parent of DST is created (mkdir -p), as --help says.
TEST(StageLayout, MissingParentsOfDstAreCreated) {
  const std::string base = test::temp_dir("contain-d32");
  fs::create_directories(base + "/src");
  put(base + "/src/f", "x");
  PosixSource s(base + "/src");
  const StageFacts f = run_stage_copy(s, options(base + "/no/such/dst"));
  EXPECT_TRUE(f.failed.empty());
  EXPECT_EQ(slurp(base + "/no/such/dst/f"), "x");
}

// D3: a second writer is refused, naming the PID holding the lock; --verify waits for no one
// but refuses while a writer holds DST.
TEST(StageLock, ASecondWriterIsRefusedNamingThePid) {
  const std::string base = test::temp_dir("contain-d3");
  fs::create_directories(base + "/src");
  fs::create_directories(base + "/dst");
  put(base + "/src/f", "x");
  const std::string dst = base + "/dst";
  StageLayout l = stage_layout(dst, "");
  fs::create_directories(l.state_dir);
  {
    const int dfd = ::open(dst.c_str(), O_RDONLY | O_DIRECTORY);
    DestLock held(dfd, dst, l.lock, LockMode::kWriter);
    ::close(dfd);  // the lock holds through its own descriptor
    EXPECT_EQ(lock_holder(l.lock), std::to_string(::getpid()));
    PosixSource s(base + "/src");
    try {
      run_stage_copy(s, options(dst));
      FAIL() << "a second writer was not refused";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("process " + std::to_string(::getpid())),
                std::string::npos)
          << e.what();
    }
    EXPECT_FALSE(fs::exists(dst + "/f"));
    try {
      VerifyOptions v;
      v.dst = dst;
      run_stage_verify(v);
      FAIL() << "verify ran while a writer held DST";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("a stage is writing"), std::string::npos) << e.what();
    }
  }
  PosixSource s(base + "/src");
  EXPECT_TRUE(run_stage_copy(s, options(dst)).failed.empty());
}

// D4 and D5: --manifest naming someone's file, a device or a FIFO.
TEST(StageJournalInput, ANonJournalIsNeverCutAndDevicesAreNeverRead) {
  const std::string base = test::temp_dir("contain-d4");
  fs::create_directories(base + "/src");
  put(base + "/src/f", "x");
  PosixSource s(base + "/src");
  put(base + "/config.json", "{\"keep\":\"me\"}");
  EngineOptions o = options(base + "/dst");
  o.journal = base + "/config.json";
  EXPECT_THROW(run_stage_copy(s, o), InputError);
  EXPECT_EQ(slurp(base + "/config.json"), "{\"keep\":\"me\"}");
  o.journal = "/dev/zero";
  EXPECT_THROW(run_stage_copy(s, o), InputError);
  ASSERT_EQ(::mkfifo((base + "/fifo").c_str(), 0600), 0);
  EXPECT_THROW(read_journal(base + "/fifo"), InputError);  // would block for ever on open
  VerifyOptions v;
  v.dst = base + "/src";
  v.journal = "/dev/zero";
  EXPECT_THROW(run_stage_verify(v), InputError);
  // A torn header (a kill while writing the first line) is still taken as no journal.
  put(base + "/torn.jsonl", "{\"chunk_bytes\":1048576,\"sou");
  EXPECT_EQ(read_journal(base + "/torn.jsonl").chunk_bytes, 0u);
}

std::string header_line() {
  return "{\"chunk_bytes\":1048576,\"source\":\"/s\",\"t\":\"stage-journal\",\"v\":1}\n";
}

// D11: a journal without its "listed" record (a header-only one, a listing cut short).
TEST(StageVerifyComplete, AJournalWithoutItsListingIsNotOk) {
  const std::string base = test::temp_dir("contain-d11");
  fs::create_directories(base + "/dst");
  put(base + "/j.jsonl", header_line());
  VerifyOptions v;
  v.dst = base + "/dst";
  v.journal = base + "/j.jsonl";
  const StageFacts f = run_stage_verify(v);
  ASSERT_EQ(f.failed.size(), 1u);
  EXPECT_EQ(f.failed[0].kind, "not-listed");
}

// D20: a done record with fewer hashes than the size implies does not hide a corrupted chunk.
TEST(StageVerifyComplete, EveryChunkTheSizeImpliesIsCompared) {
  const std::string base = test::temp_dir("contain-d20");
  fs::create_directories(base + "/src");
  put(base + "/src/big", random_bytes((2u << 20) + 5, 3));
  put(base + "/src/empty", "");  // no bytes: no hash needed (--replicate journals none)
  PosixSource s(base + "/src");
  const std::string dst = base + "/dst";
  run_stage_copy(s, options(dst));
  const std::string journal = default_journal(dst);
  std::string text = slurp(journal), out;
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) {
    if (l.find("\"t\":\"done\"") != std::string::npos)
      l = l.substr(0, l.find("\"xxh3\":")) + "\"xxh3\":[]}";
    out += l + "\n";
  }
  put(journal, out);
  VerifyOptions v;
  v.dst = dst;
  const StageFacts f = run_stage_verify(v);
  ASSERT_EQ(f.failed.size(), 1u);
  EXPECT_EQ(f.failed[0].path, "big");
  EXPECT_EQ(f.files_verified, 1u);  // the empty file
}

// D12: a file name that is not UTF-8 is journaled byte for byte: verify finds it, a rerun skips
// it.
TEST(StageJournalNames, ANameThatIsNotUtf8IsKeptAsBytes) {
  const std::string base = test::temp_dir("contain-d12");
  fs::create_directories(base + "/src");
  const std::string name = std::string("caf") + static_cast<char>(0xe9);
  put(base + "/src/" + name, "hi");
  PosixSource s(base + "/src");
  const std::string dst = base + "/dst";
  run_stage_copy(s, options(dst));
  EXPECT_EQ(slurp(dst + "/" + name), "hi");
  const JournalState j = read_journal(default_journal(dst));
  EXPECT_NE(j.find(name), nullptr);
  VerifyOptions v;
  v.dst = dst;
  const StageFacts vf = run_stage_verify(v);
  EXPECT_TRUE(vf.failed.empty());
  EXPECT_EQ(vf.files_verified, 1u);
  const StageFacts again = run_stage_copy(s, options(dst));
  EXPECT_EQ(again.files_skipped, 1u);
  EXPECT_TRUE(again.changed.empty());
}

// D13: SRC = DST, DST inside SRC, SRC inside DST.
TEST(StageOverlap, SrcAndDstThatOverlapAreRefused) {
  const std::string base = test::temp_dir("contain-d13");
  fs::create_directories(base + "/src/sub");
  fs::create_directories(base + "/other");
  fs::create_directory_symlink(base + "/src", base + "/alias");
  EXPECT_THROW(check_src_dst_apart(base + "/src", base + "/src"), InputError);
  EXPECT_THROW(check_src_dst_apart(base + "/src", base + "/alias/"), InputError);
  EXPECT_THROW(check_src_dst_apart(base + "/src", base + "/src/copy"), InputError);
  EXPECT_THROW(check_src_dst_apart(base + "/src", base + "/alias/new/deeper"), InputError);
  EXPECT_THROW(check_src_dst_apart(base + "/src/sub", base + "/src"), InputError);
  EXPECT_NO_THROW(check_src_dst_apart(base + "/src", base + "/other"));
  EXPECT_NO_THROW(check_src_dst_apart(base + "/src", base + "/srcx"));
  EXPECT_NO_THROW(check_src_dst_apart("https://a.blob.core.windows.net/c", base + "/other"));
}

}  // namespace
}  // namespace trainready::stage

// The journal records SRC's real path (review of issue 29): `src` typed in two working
// directories is two sources, so the second is refused instead of being taken for a resume
// (which skipped the file as "staged already" and left the first dataset's bytes in DST); `src/`
// and its absolute spelling are one source.
namespace trainready::stage {
namespace {

struct Cwd {
  std::string saved = fs::current_path().string();
  ~Cwd() { fs::current_path(saved); }
};

TEST(StageSourceIdentity, TheSameNameInAnotherDirectoryIsAnotherSource) {
  const Cwd restore;
  const std::string base = test::temp_dir("stage-srcid");
  for (const char* d : {"A", "B"}) fs::create_directories(base + "/" + d + "/src");
  put(base + "/A/src/one", "a1");
  put(base + "/B/src/one", "bx");
  fs::last_write_time(base + "/B/src/one", fs::last_write_time(base + "/A/src/one"));
  const std::string dst = base + "/out/dst";
  fs::create_directories(base + "/out");

  fs::current_path(base + "/A");
  PosixSource a("src");
  EXPECT_EQ(a.describe(), fs::canonical(base + "/A/src").string());
  run_stage_copy(a, options(dst));
  fs::current_path(base + "/B");
  PosixSource b("src");
  EXPECT_THROW(run_stage_copy(b, options(dst)), InputError);
  EXPECT_EQ(slurp(dst + "/one"), "a1");
  PosixSource again(base + "/A/src/");
  EXPECT_NO_THROW(run_stage_copy(again, options(dst)));
}

TEST(StageSourceIdentity, AJournalThatRecordedSrcAsTypedStillResumes) {
  const Cwd restore;
  const std::string base = test::temp_dir("stage-srcid-old");
  fs::create_directories(base + "/src");
  put(base + "/src/f", "x");
  fs::current_path(base);
  PosixSource s("src");
  EXPECT_TRUE(journal_source_matches("src", s));  // an older version's journal header
  EXPECT_TRUE(journal_source_matches("./src/", s));
  EXPECT_FALSE(journal_source_matches("other", s));
}

}  // namespace
}  // namespace trainready::stage
