// `trainready health` as a user runs it: one sample per run with a state file (the
// HealthCheckProgram shape), --replay over a recorded timeline, --clear, --record-only, and the
// exit 2 of a state file that is not one.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "support/paths.h"
#include "support/run_cli.h"

namespace trainready {
namespace {

namespace fs = std::filesystem;
using test::run_trainready;

std::string timeline(const std::string& name) {
  return std::string(TR_TEST_DATA) + "/health/" + name;
}

std::vector<std::string> samples(const std::string& name) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(timeline(name)))
    if (e.is_directory()) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

const char* kNode = "SLURMD_NODENAME=node2 PATH=/nonexistent";

TEST(HealthCli, OneSamplePerRunDrainsNothingWithoutDrainAndPrintsTheGhrBody) {
  const std::string state = test::temp_dir("health-cli-1") + "/state.json";
  const auto dirs = samples("flapping-port");
  int last = -1;
  std::string out;
  for (const std::string& d : dirs) {
    auto r = run_trainready({"health", "--state", state, "--root", d}, kNode);
    ASSERT_NE(r.code, 2) << r.err;
    last = r.code;
    out = r.out;
  }
  EXPECT_EQ(last, 1);
  EXPECT_NE(out.find("health-ib-port-flapping"), std::string::npos) << out;
  EXPECT_NE(out.find("repair: report-azure (Resource.Hpc.Unhealthy.IBPortFlapping) for node2"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\"impactCategory\": \"Resource.Hpc.Unhealthy.IBPortFlapping\""),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("virtualMachines/ndh100-0001"), std::string::npos) << out;
  EXPECT_NE(out.find("Microsoft.Impact/workloadImpacts"), std::string::npos) << out;
  // Without --drain, nothing is run or printed for Slurm.
  EXPECT_EQ(out.find("state=drain"), std::string::npos) << out;
  // The state survives the process: a new run with no new sample still says flapping.
  auto again = run_trainready({"health", "--state", state, "--root", dirs.back(), "--json"}, kNode);
  EXPECT_EQ(again.code, 1) << again.err;
  EXPECT_NE(again.out.find("\"health-ib-port-flapping\""), std::string::npos) << again.out;
}

TEST(HealthCli, RecordOnlyShowsTheDrainItWouldRunWithTheAction) {
  const std::string state = test::temp_dir("health-cli-2") + "/state.json";
  auto r =
      run_trainready({"health", "--state", state, "--replay", timeline("dropped-port")}, kNode);
  EXPECT_EQ(r.code, 1) << r.err;
  r = run_trainready({"health", "--state", state, "--root", samples("dropped-port").back(),
                      "--drain", "--record-only"},
                     kNode);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("record-only, would run: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nodename=node2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("action=report-azure ghr=Resource.Hpc.Unhealthy.IBPortDown"),
            std::string::npos)
      << r.out;
}

TEST(HealthCli, ReplayPrintsEachSamplesTransitions) {
  auto r = run_trainready({"health", "--replay", timeline("recovered-link")}, kNode);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("t030 2026-11-29 00:00:30 UTC:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mlx5_ib0/1 ACTIVE -> DOWN"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mlx5_ib0/1 recovered"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("repair:"), std::string::npos) << r.out;
}

TEST(HealthCli, ClearEndsAStickyStateAndTheNodeIsClear) {
  const std::string state = test::temp_dir("health-cli-3") + "/state.json";
  auto r =
      run_trainready({"health", "--state", state, "--replay", timeline("flapping-port")}, kNode);
  EXPECT_EQ(r.code, 1) << r.err;
  r = run_trainready({"health", "--state", state, "--clear", "mlx5_ib0/1"}, kNode);
  EXPECT_EQ(r.code, 0) << r.err;
  r = run_trainready({"health", "--state", state, "--root", samples("flapping-port").back()},
                     kNode);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

TEST(HealthCli, DamagedStateFileIsExitTwoAndClearAllStartsOver) {
  const std::string state = test::temp_dir("health-cli-4") + "/state.json";
  { std::ofstream(state) << "{\"schema\": \"trainready-health-state\", \"version\": 1, \"po"; }
  auto r =
      run_trainready({"health", "--state", state, "--root", samples("recovered-link")[0]}, kNode);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(state), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--clear all"), std::string::npos) << r.err;
  r = run_trainready({"health", "--state", state, "--clear", "xids"}, kNode);
  EXPECT_EQ(r.code, 2) << r.out;
  r = run_trainready({"health", "--state", state, "--clear", "all"}, kNode);
  EXPECT_EQ(r.code, 0) << r.err;
  r = run_trainready({"health", "--state", state, "--root", samples("recovered-link")[0]}, kNode);
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST(HealthCli, OutOfOrderSamplesAndMissingStateAreExitTwo) {
  const std::string state = test::temp_dir("health-cli-5") + "/state.json";
  const auto dirs = samples("recovered-link");
  EXPECT_EQ(run_trainready({"health", "--state", state, "--root", dirs[2]}, kNode).code, 0);
  auto r = run_trainready({"health", "--state", state, "--root", dirs[0]}, kNode);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("time order"), std::string::npos) << r.err;
  EXPECT_EQ(run_trainready({"health", "--root", dirs[0]}, kNode).code, 2);
}

TEST(HealthCli, CollectKeepsTheCountersHealthReads) {
  // A snapshot of a snapshot: collect records what the health reader reads, counters included,
  // so `collect` at an interval is a timeline.
  const std::string out = test::temp_dir("health-cli-6") + "/snap";
  const std::string src = samples("symbol-errors").back();
  auto c = run_trainready({"collect", out, "--root", src, "--no-imds", "--no-commands"});
  ASSERT_EQ(c.code, 0) << c.out << c.err;
  std::ifstream in(out + "/sys/class/infiniband/mlx5_ib0/ports/1/counters/symbol_error");
  std::string v;
  in >> v;
  EXPECT_EQ(v, "180");
}

TEST(HealthCli, HealthRulesAreListedExplainedAndSelectable) {
  auto r = run_trainready({"rules"});
  EXPECT_NE(r.out.find("health-ib-port-flapping"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" health "), std::string::npos) << r.out;
  auto e = run_trainready({"explain", "health-gpu-xid"});
  EXPECT_EQ(e.code, 0);
  EXPECT_NE(e.out.find("## Fix"), std::string::npos);
  // --skip takes a health rule id: the flapping port no longer fails the run.
  auto s = run_trainready(
      {"health", "--replay", timeline("flapping-port"), "--skip", "health-ib-port-flapping"},
      kNode);
  EXPECT_EQ(s.code, 0) << s.out << s.err;
}

}  // namespace
}  // namespace trainready
