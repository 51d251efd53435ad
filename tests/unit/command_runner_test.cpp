#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "collect/command_runner.h"

using namespace trainready;

TEST(CommandRunner, CapturesStdoutAndExitCode) {
  CommandResult r =
      run_command({"sh", "-c", "echo CA \\'mlx5_0\\'; echo oops >&2; exit 3"}, 5000, 1024);
  ASSERT_TRUE(r.found);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.output, "CA 'mlx5_0'\n");  // stderr is not part of the capture
}

TEST(CommandRunner, MissingProgramTimeoutAndOutputCap) {
  EXPECT_FALSE(run_command({"trainready-no-such-program"}, 1000, 1024).found);
  auto t0 = std::chrono::steady_clock::now();
  CommandResult slow = run_command({"sleep", "30"}, 200, 1024);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  CommandResult big = run_command({"sh", "-c", "yes | head -c 100000"}, 5000, 1000);
  EXPECT_EQ(big.output.size(), 1000u);
}

// A program that closes its output and then hangs (nvidia-smi stuck in the driver after its
// header) is still ended at the deadline: the old runner waited for it without a limit.
TEST(CommandRunner, ClosedOutputThenHangStillEndsAtTheDeadline) {
  auto t0 = std::chrono::steady_clock::now();
  CommandResult r = run_command({"sh", "-c", "echo header; exec >&- 2>&-; sleep 30"}, 300, 1024);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.output, "header\n");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST(CommandRunner, MergesStderrWhenAsked) {
  CommandResult r = run_command({"sh", "-c", "echo out; echo why >&2; exit 1"}, 5000, 1024, true);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("out"), std::string::npos);
  EXPECT_NE(r.output.find("why"), std::string::npos);
}

namespace {
// 'Z' (a zombie, i.e. ended), 0 when gone, else the state letter of /proc/PID/stat.
char proc_state(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string all;
  if (!std::getline(in, all)) return 0;
  const std::size_t close = all.rfind(')');
  return close == std::string::npos || close + 2 >= all.size() ? 0 : all[close + 2];
}
}  // namespace

// Reliability probe 3, D22: on a timeout only the direct child was killed; a wrapper script's
// own child (here `sleep 30`) lived on.
TEST(CommandRunner, TimeoutKillsWhatTheChildStarted) {
  const std::string pidfile = ::testing::TempDir() + "command_runner_grandchild.pid";
  std::remove(pidfile.c_str());
  CommandResult r =
      run_command({"sh", "-c", "sleep 30 & echo $! > " + pidfile + "; wait"}, 500, 1024);
  EXPECT_TRUE(r.timed_out);
  std::ifstream in(pidfile);
  pid_t grandchild = 0;
  ASSERT_TRUE(in >> grandchild);
  char state = 'S';
  for (int i = 0; i < 100 && state != 0 && state != 'Z'; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    state = proc_state(grandchild);
  }
  if (state != 0 && state != 'Z') ::kill(grandchild, SIGKILL);  // leave nothing behind
  EXPECT_TRUE(state == 0 || state == 'Z') << "the script's sleep outlived the timeout";
}
