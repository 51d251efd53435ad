// Issue 19: endless, huge and binary inputs give up with a clear error instead of hanging or
// growing; temporaries are removed on SIGINT/SIGTERM and stale ones of this tool only.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/input_error.h"
#include "core/line_reader.h"
#include "core/root.h"
#include "core/temp_files.h"
#include "support/paths.h"

using namespace trainready;

namespace {

std::string write(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary) << data;
  return path;
}

std::string read_error(const std::string& path) {
  try {
    LineReader::read(path, [](std::string_view, std::uint64_t, bool) {});
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::uint64_t bytes_read_by_me() {
  std::ifstream io("/proc/self/io");
  std::string k;
  std::uint64_t v = 0;
  while (io >> k >> v) {
    if (k == "rchar:") return v;
  }
  return 0;
}

}  // namespace

TEST(HostileInput, LineReaderRefusesDevices) {
  for (const char* dev : {"/dev/zero", "/dev/urandom", "/dev/null"}) {
    const std::string e = read_error(dev);
    EXPECT_NE(e.find("is a device"), std::string::npos) << dev << ": " << e;
  }
}

TEST(HostileInput, LineReaderGivesUpOnBinaryAndEndlessLines) {
  const std::string d = test::temp_dir("hostile-lines");
  const std::string zeros = write(d + "/zeros.log", std::string(2u << 20, '\0'));
  EXPECT_NE(read_error(zeros).find("binary data"), std::string::npos) << read_error(zeros);
  // Under the 1 MiB probe too: 200 KiB of random-looking control bytes.
  std::string noise;
  for (int i = 0; i < (200 << 10); ++i) noise += static_cast<char>(i * 7 % 32);
  const std::string small = write(d + "/small.bin", noise);
  EXPECT_NE(read_error(small).find("binary data"), std::string::npos) << read_error(small);
  const std::string line = write(d + "/line.log", std::string(17u << 20, 'a'));
  EXPECT_NE(read_error(line).find("no line structure"), std::string::npos) << read_error(line);
  // A text log with a crash's block of NULs in it is still read.
  std::string log;
  while (log.size() < (3u << 20)) log += "host:1:2 [0] NCCL INFO Using network IB\n";
  log.insert(log.size() / 2, std::string(4096, '\0'));
  const std::string ok = write(d + "/ok.log", log);
  std::uint64_t lines = 0;
  LineReader::read(ok, [&](std::string_view, std::uint64_t, bool) { ++lines; });
  EXPECT_GT(lines, 70000u);
}

TEST(HostileInput, OversizedFileIsRefusedBeforeItIsRead) {
  const std::string d = test::temp_dir("hostile-size");
  const std::string big = d + "/big.json";
  {
    int fd = ::open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, off_t{1} << 30), 0);  // sparse 1 GiB
    ::close(fd);
  }
  const std::uint64_t before = bytes_read_by_me();
  FileRead r = FsRoot("/").read_file(big, kLargeFileLimit);
  const std::uint64_t after = bytes_read_by_me();
  EXPECT_EQ(r.status, ReadStatus::kUnreadable);
  EXPECT_NE(r.error.find("larger than"), std::string::npos) << r.error;
  EXPECT_LT(after - before, std::uint64_t{1} << 20);  // not one chunk of it read
}

// A test binary started in the background by a non-interactive shell (`cmd &`, nohup, some CI
// runners) inherits SIGINT ignored, and TempGuard rightly leaves an ignored signal alone
// (src/core/temp_files.cpp), once per process: the test then saw its child exit 0 on SIGINT
// (red only in background runs). This binary starts with both signals at their default, as an
// interactive shell would start it, before any guard installs its handlers.
const bool kSignalsAtDefault = [] {
  for (int sig : {SIGTERM, SIGINT}) {
    struct sigaction now {};
    if (::sigaction(sig, nullptr, &now) == 0 && now.sa_handler == SIG_IGN) ::signal(sig, SIG_DFL);
  }
  return true;
}();

TEST(HostileInput, TemporariesGoOnSigtermAndSigint) {
  ASSERT_TRUE(kSignalsAtDefault);
  const std::string d = test::temp_dir("hostile-signal");
  for (int sig : {SIGTERM, SIGINT}) {
    const std::string file = d + "/file.tmp-" + std::to_string(sig);
    const std::string tree = d + "/tree.tmp-" + std::to_string(sig);
    write(file, "partial");
    std::filesystem::create_directories(tree + "/sys/class/x");
    write(tree + "/sys/class/x/a", "1");
    write(tree + "/manifest.json", "{");
    std::filesystem::create_symlink("/etc/passwd", tree + "/link");
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      TempGuard f(file);
      TempGuard t(tree, true);
      ::raise(sig);
      ::_exit(0);  // not reached: the signal terminates the child
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    // Which signal, and what the child's parent had for it at the fork: a run that goes red here
    // says whether the signal was ignored or handled elsewhere in this process.
    struct sigaction now {};
    ::sigaction(sig, nullptr, &now);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig)
        << "signal " << sig << ", status " << status << ", parent's handler "
        << (now.sa_handler == SIG_IGN   ? "SIG_IGN"
            : now.sa_handler == SIG_DFL ? "SIG_DFL"
                                        : "set");
    EXPECT_FALSE(std::filesystem::exists(file));
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::symlink_status(tree)));
    EXPECT_TRUE(std::filesystem::exists("/etc/passwd"));  // the link went, not its target
  }
  // Released guards leave their paths alone.
  const std::string kept = write(d + "/kept", "x");
  {
    TempGuard g(kept);
    g.release();
  }
  EXPECT_TRUE(std::filesystem::exists(kept));
}

TEST(HostileInput, StaleTagsNeedThisHostAndADeadProcess) {
  const std::string mine = temp_tag();
  const std::string host = mine.substr(0, mine.rfind('.'));
  EXPECT_FALSE(temp_tag_is_stale(mine));                    // us
  EXPECT_FALSE(temp_tag_is_stale(host + ".1"));             // init: alive
  EXPECT_FALSE(temp_tag_is_stale("other-node.999999999"));  // another host's
  EXPECT_FALSE(temp_tag_is_stale(host + ".12x"));
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  EXPECT_TRUE(temp_tag_is_stale(host + "." + std::to_string(pid)));
}
