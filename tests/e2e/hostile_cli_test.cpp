// Issue 19 end to end: endless and device inputs, stdin over the cap, write errors on stdout,
// `-o` over an input, files this run did not create, a --root that is not there, stale
// temporaries. Each gives a clear exit 2 (or is cleaned up) and leaves other files as they were.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/temp_files.h"
#include "support/paths.h"
#include "support/run_cli.h"

namespace trainready::test {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string dead_tag() {
  const std::string mine = temp_tag();
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return mine.substr(0, mine.rfind('.')) + "." + std::to_string(pid);
}

TEST(HostileCli, EndlessAndDeviceInputsGiveUp) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"nccl", "/dev/zero"},
        {"nccl", "/dev/urandom"},
        {"nccl-tests", "/dev/zero"},
        {"nccl-tests", "/dev/urandom"},
        {"doctor", "--root", example("nd-h100-healthy"), "--nccl-log", "/dev/zero"},
        {"doctor", "--root", example("nd-h100-healthy"), "--nccl-tests", "/dev/urandom"}}) {
    CliResult r = run_trainready(args);
    EXPECT_EQ(r.code, 2) << args[0] << " " << args.back() << ": " << r.err;
    EXPECT_NE(r.err.find("is a device"), std::string::npos) << r.err;
  }
  // stdin stays supported, and gives up on what is not text.
  for (const char* cmd : {"nccl", "nccl-tests"}) {
    CliResult z = run_trainready({cmd, "-"}, "", "/dev/zero");
    EXPECT_EQ(z.code, 2) << cmd << ": " << z.err;
    EXPECT_NE(z.err.find("<stdin>"), std::string::npos) << z.err;
    EXPECT_NE(z.err.find("binary data"), std::string::npos) << z.err;
  }
  CliResult u = run_trainready({"nccl", "-"}, "", "/dev/urandom");
  EXPECT_EQ(u.code, 2) << u.err;
}

TEST(HostileCli, BinaryIsNotACapture) {
  const std::string d = temp_dir("hostile-capture");
  std::string junk = "NCCL_IB_DISABLE=0\n";
  for (int i = 0; i < 4096; ++i) junk += static_cast<char>(i * 7 % 32);
  std::ofstream(d + "/junk.bin", std::ios::binary) << junk;
  CliResult r = run_trainready({"doctor", "--capture", d + "/junk.bin"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("binary data"), std::string::npos) << r.err;
  // /proc/PID/environ separates with NUL: still a capture.
  const std::string environ = std::string("NCCL_IB_DISABLE=1") + '\0' + "PATH=/bin" + '\0';
  std::ofstream(d + "/environ", std::ios::binary) << environ;
  CliResult e = run_trainready({"doctor", "--capture", "env=" + d + "/environ"});
  EXPECT_NE(e.code, 2) << e.err;
}

TEST(HostileCli, LintStdinIsCapped) {
  CliResult r = run_trainready({"lint", "-"}, "", "/dev/zero");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("<stdin>: larger than 64 MiB"), std::string::npos) << r.err;
}

TEST(HostileCli, StdoutWriteErrorsExitTwo) {
  const std::string d = temp_dir("hostile-full");
  const std::string cmd = std::string("'") + TR_BINARY + "' doctor --root '" +
                          example("nd-h100-healthy") + "' --json >/dev/full 2>'" + d + "/err'";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(slurp(d + "/err").find("stdout: write failed"), std::string::npos) << slurp(d + "/err");
  const std::string rules = std::string("'") + TR_BINARY + "' rules >/dev/full 2>/dev/null";
  const int s2 = std::system(rules.c_str());
  EXPECT_TRUE(WIFEXITED(s2) && WEXITSTATUS(s2) == 2) << s2;
}

TEST(HostileCli, OutputNamingAnInputIsRefused) {
  const std::string d = temp_dir("hostile-o");
  const std::string log = d + "/run.log";
  fs::copy_file(synthetic_log("no-ib-device-socket-2node.log"), log);
  const std::string before = slurp(log);
  CliResult r = run_trainready({"nccl", log, "-o", log});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("is also an input"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(log), before);
  CliResult same = run_trainready({"nccl", log, "-o", d + "/./run.log", "--json"});
  EXPECT_EQ(same.code, 2) << same.err;
  EXPECT_EQ(slurp(log), before);
  CliResult ok = run_trainready({"nccl", log, "-o", d + "/report.txt"});
  EXPECT_NE(ok.code, 2) << ok.err;
}

TEST(HostileCli, CollectChecksItsRootLikeTheDoctor) {
  const std::string d = temp_dir("hostile-root");
  CliResult c = run_trainready({"collect", d + "/out", "--root", d + "/nonexistent"});
  CliResult doc = run_trainready({"doctor", "--root", d + "/nonexistent"});
  EXPECT_EQ(c.code, 2) << c.err;
  EXPECT_EQ(doc.code, 2);
  EXPECT_NE(c.err.find("not a readable directory"), std::string::npos) << c.err;
  EXPECT_FALSE(fs::exists(d + "/out"));
}

TEST(HostileCli, CollectRemovesOnlyItsOwnStaleTemporaries) {
  const std::string d = temp_dir("hostile-stale");
  const std::string stale = d + "/snap.tmp-" + dead_tag() + ".AbC123";
  const std::string other = d + "/snap.tmp-othernode.1.AbC123";
  const std::string alive = d + "/snap.tmp-" + temp_tag().substr(0, temp_tag().rfind('.')) +
                            ".1.AbC123";  // init never dies
  for (const auto& p : {stale, other, alive}) {
    fs::create_directories(p + "/sys");
    std::ofstream(p + "/sys/x") << "1";
  }
  CliResult r = run_trainready({"collect", d + "/snap", "--root", example("nd-h100-healthy")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(other + "/sys/x"));
  EXPECT_TRUE(fs::exists(alive + "/sys/x"));
}

TEST(HostileCli, BenchStorageNeverWritesOverAFileItDidNotCreate) {
  const std::string d = temp_dir("hostile-precious");
  std::ofstream(d + "/data-000000.bin") << "precious\n";
  CliResult r = run_trainready({"bench", "storage", d, "--create", "2", "--file-size", "8k"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("data-000000.bin"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--replace"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(d + "/data-000000.bin"), "precious\n");
  EXPECT_FALSE(fs::exists(d + "/data-000001.bin"));  // refused before anything was written
  // Asked to, it replaces it.
  CliResult rep = run_trainready(
      {"bench", "storage", d, "--create", "2", "--file-size", "8k", "--replace", "--direct", "0"});
  EXPECT_NE(rep.code, 2) << rep.err;
  EXPECT_EQ(fs::file_size(d + "/data-000000.bin"), 8192u);
}

TEST(HostileCli, BenchStorageRemovesStaleTemporariesOfDeadRunsOnly) {
  const std::string d = temp_dir("hostile-stale-bin");
  const std::string stale = d + "/.tmp-data-000000.bin." + dead_tag();
  const std::string other = d + "/.tmp-data-000001.bin.othernode.1";
  std::ofstream(stale) << "x";
  std::ofstream(other) << "x";
  CliResult r = run_trainready(
      {"bench", "storage", d, "--create", "1", "--file-size", "8k", "--direct", "0"});
  EXPECT_NE(r.code, 2) << r.err;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(other));
}

TEST(HostileCli, LintDirectoryDoesNotFollowLinksOut) {
  const std::string d = temp_dir("hostile-lint-link");
  const std::string outside = temp_dir("hostile-lint-secret") + "/secret.json";
  std::ofstream(outside) << "SECRET-BYTES not json";
  fs::create_directories(d + "/tpl");
  fs::create_symlink(outside, d + "/tpl/evil.json");
  std::ofstream(d + "/tpl/ok.json")
      << R"({"$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#", "contentVersion": "1.0.0.0", "resources": []})";
  CliResult r = run_trainready({"lint", d + "/tpl"});
  EXPECT_NE(r.code, 2) << r.err;  // the link is left out, the rest is linted
  EXPECT_NE(r.out.find("a link out of the directory"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("SECRET"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("last read"), std::string::npos) << r.err;  // not one byte of it
  EXPECT_EQ(r.out.find("SECRET"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace trainready::test
