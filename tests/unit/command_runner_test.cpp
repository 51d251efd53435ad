#include <gtest/gtest.h>

#include <chrono>

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

TEST(CommandRunner, MergesStderrWhenAsked) {
  CommandResult r = run_command({"sh", "-c", "echo out; echo why >&2; exit 1"}, 5000, 1024, true);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("out"), std::string::npos);
  EXPECT_NE(r.output.find("why"), std::string::npos);
}
