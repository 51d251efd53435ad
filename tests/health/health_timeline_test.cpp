// The recorded timelines of tests/data/health (each tNNN a `collect` snapshot in time order)
// through the sample reader, the state machine and the health rules: each reaches the state and
// the repair action the sources say it should.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/input_error.h"
#include "core/root.h"
#include "health/health_machine.h"
#include "health/health_replay.h"
#include "health/health_sample.h"
#include "health/health_state_file.h"
#include "rules/health/health_judge.h"
#include "rules/health/health_rules.h"

namespace trainready {
namespace {

namespace fs = std::filesystem;

using test::health_replay;
using test::health_samples;
using test::health_timeline;

std::vector<HealthVerdict> verdicts(const HealthFacts& f, const char* id) {
  return health_verdicts(f, id);
}

TEST(HealthTimeline, FlappingPortIsFlappingAfterThreeCyclesAndReportedToAzure) {
  // Two cycles: recovered, not yet a flap (GPUd needs 3).
  HealthFacts two = health_replay("flapping-port", 7);
  EXPECT_EQ(two.state.ports.at("mlx5_ib0/1").condition, PortCondition::kRecovered);
  EXPECT_TRUE(verdicts(two, "health-ib-port-flapping").empty());
  HealthFacts f = health_replay("flapping-port");
  const PortHistory& h = f.state.ports.at("mlx5_ib0/1");
  EXPECT_EQ(h.condition, PortCondition::kFlapping);
  EXPECT_EQ(h.flaps.size(), 3u);
  EXPECT_EQ(f.state.ports.at("mlx5_ib1/1").condition, PortCondition::kOk);
  auto v = verdicts(f, "health-ib-port-flapping");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].severity, Severity::kError);
  EXPECT_EQ(v[0].action, RepairAction::kReportAzure);
  EXPECT_EQ(v[0].ghr_category, "Resource.Hpc.Unhealthy.IBPortFlapping");
  EXPECT_NE(v[0].message.find("mlx5_ib0/1"), std::string::npos);
}

TEST(HealthTimeline, FlappingIsStickyUntilCleared) {
  HealthFacts f = health_replay("flapping-port");
  // The port is ACTIVE in the last sample and stays flapping.
  EXPECT_EQ(f.state.ports.at("mlx5_ib0/1").state, "ACTIVE");
  EXPECT_FALSE(verdicts(f, "health-ib-port-flapping").empty());
  EXPECT_NE(clear_health(f.state, "mlx5_ib0/1").find("cleared"), std::string::npos);
  EXPECT_TRUE(verdicts(f, "health-ib-port-flapping").empty());
  EXPECT_THROW(clear_health(f.state, "mlx5_ib9/1"), InputError);
}

TEST(HealthTimeline, ClimbingSymbolErrorsPassTheHourlyFatalLevel) {
  // After 60 s: 120 errors, not above 120/hour yet; 2/s is under the 10/s degraded level.
  HealthFacts early = health_replay("symbol-errors", 3);
  EXPECT_TRUE(verdicts(early, "health-ib-counter-errors").empty());
  HealthFacts f = health_replay("symbol-errors");
  const CounterHistory& c = f.state.ports.at("mlx5_ib0/1").counters.at("symbol_error");
  EXPECT_EQ(c.last, 180u);
  EXPECT_EQ(c.hour_increase, 180u);
  EXPECT_EQ(c.delta, 60u);
  EXPECT_EQ(c.interval_s, 30);
  auto v = verdicts(f, "health-ib-counter-errors");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].severity, Severity::kError);
  EXPECT_EQ(v[0].action, RepairAction::kReportAzure);
  EXPECT_EQ(v[0].ghr_category, "Resource.Hpc.Unhealthy.IBPerformance");
  EXPECT_NE(v[0].cause.find("NVSentinel"), std::string::npos);
}

TEST(HealthTimeline, XidAgainAfterARebootEscalatesToAGuestHealthReport) {
  // Before the reboot: one Xid 79 in this boot, NVIDIA's RESTART_BM: reboot.
  HealthFacts before = health_replay("xid-reboot", 2);
  auto b = verdicts(before, "health-gpu-xid");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].action, RepairAction::kReboot);
  // Rebooted, the old line read again: counted once, from an earlier boot, not current.
  HealthFacts rebooted = health_replay("xid-reboot", 3);
  EXPECT_EQ(rebooted.state.xids.size(), 1u);
  EXPECT_TRUE(verdicts(rebooted, "health-gpu-xid").empty());
  EXPECT_TRUE(std::any_of(rebooted.events.begin(), rebooted.events.end(),
                          [](const std::string& e) { return e.rfind("rebooted", 0) == 0; }));
  // The same Xid on the same GPU in the new boot: the reboot did not fix it.
  HealthFacts f = health_replay("xid-reboot");
  EXPECT_EQ(f.state.xids.size(), 2u);
  auto v = verdicts(f, "health-gpu-xid");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].severity, Severity::kError);
  EXPECT_EQ(v[0].action, RepairAction::kReportAzure);
  EXPECT_EQ(v[0].ghr_category, "Resource.Hpc.Unhealthy.XID79FallenOffBus");
  EXPECT_NE(v[0].message.find("2 boots"), std::string::npos);
}

TEST(HealthTimeline, RecoveredLinkIsInformationAndNeedsNoAction) {
  HealthFacts down = health_replay("recovered-link", 2);
  auto d = verdicts(down, "health-ib-port-down");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].severity, Severity::kWarning);
  HealthFacts f = health_replay("recovered-link");
  EXPECT_EQ(f.state.ports.at("mlx5_ib0/1").condition, PortCondition::kRecovered);
  auto v = verdicts(f, "health-ib-port-down");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].severity, Severity::kInfo);
  EXPECT_EQ(v[0].action, RepairAction::kIgnore);
  EXPECT_TRUE(verdicts(f, "health-ib-port-flapping").empty());
}

TEST(HealthTimeline, PortDownFourMinutesIsDroppedAndStaysDropped) {
  HealthFacts early = health_replay("dropped-port", 8);  // down 3.5 min
  EXPECT_EQ(early.state.ports.at("mlx5_ib0/1").condition, PortCondition::kDown);
  HealthFacts f = health_replay("dropped-port");
  EXPECT_EQ(f.state.ports.at("mlx5_ib0/1").condition, PortCondition::kDropped);
  auto v = verdicts(f, "health-ib-port-down");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].action, RepairAction::kReportAzure);
  EXPECT_EQ(v[0].ghr_category, "Resource.Hpc.Unhealthy.IBPortDown");
}

TEST(HealthTimeline, QuietStateHasNoFindings) {
  HealthFacts f = health_replay("symbol-errors", 1);
  const Evaluation ev = evaluate_health(f, RuleSelection{});
  EXPECT_TRUE(ev.findings.empty());
  EXPECT_EQ(ev.evaluations, 10);  // every health rule ran
}

TEST(HealthTimeline, RowRemapPendingNeedsAResetAndAfterARebootAReport) {
  HealthFacts pending = health_replay("row-remap", 2);
  auto p = verdicts(pending, "health-gpu-row-remap");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].action, RepairAction::kResetGpu);
  EXPECT_NE(p[0].message.find("GPU 0 (00000001:00:00.0)"), std::string::npos);
  HealthFacts f = health_replay("row-remap");
  auto v = verdicts(f, "health-gpu-row-remap");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].severity, Severity::kError);
  EXPECT_EQ(v[0].action, RepairAction::kReportAzure);
  EXPECT_EQ(v[0].ghr_category, "Resource.Hpc.Unhealthy.HpcRowRemapFailure");
  EXPECT_TRUE(verdicts(health_replay("row-remap", 1), "health-gpu-row-remap").empty());
}

TEST(HealthState, RowRemapFailureIsStickyUntilClearedGpus) {
  HealthState s;
  HealthSample a;
  a.time = 1000;
  a.boot_time = 10;
  GpuFacts g;
  Gpu gpu;
  gpu.index = 3;
  gpu.pci_bus_id = "00000004:00:00.0";
  gpu.remap_failure = true;
  g.gpus.push_back(gpu);
  a.gpus = Fact<GpuFacts>::present(g, {"nvml", 0});
  advance_health(s, a);
  // The next sample no longer says so (NVML after a reset): still failed, until cleared.
  a.time = 1030;
  a.gpus.value.gpus[0].remap_failure = false;
  advance_health(s, a);
  HealthFacts f;
  f.state = s;
  auto v = health_verdicts(f, "health-gpu-row-remap");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].ghr_category, "Resource.Hpc.Unhealthy.HpcRowRemapFailure");
  clear_health(f.state, "gpus");
  EXPECT_TRUE(health_verdicts(f, "health-gpu-row-remap").empty());
}

TEST(HealthState, SamplesMustComeInTimeOrder) {
  HealthState s;
  const auto dirs = health_samples("recovered-link");
  FsRoot late(dirs[2]);
  FsRoot early(dirs[0]);
  advance_health(s, read_health_sample(late));
  EXPECT_THROW(advance_health(s, read_health_sample(early)), InputError);
}

TEST(HealthState, CounterResetRestartsRatesInsteadOfAHugeDelta) {
  HealthState s;
  HealthSample a;
  a.time = 1000;
  a.ports.push_back({"mlx5_0/1", "ACTIVE", "LinkUp", {{"symbol_error", 500}}, "x"});
  advance_health(s, a);
  HealthSample b = a;
  b.time = 1030;
  b.ports[0].counters["symbol_error"] = 3;
  const auto events = advance_health(s, b);
  const CounterHistory& c = s.ports.at("mlx5_0/1").counters.at("symbol_error");
  EXPECT_EQ(c.delta, 0u);
  EXPECT_TRUE(c.reset_seen);
  EXPECT_FALSE(events.empty());
  HealthFacts f;
  f.state = s;
  EXPECT_TRUE(health_verdicts(f, "health-ib-counter-errors").empty());
}

TEST(HealthState, DamagedOrNewerStateFilesAreInputErrors) {
  EXPECT_THROW(parse_health_state("{not json", "s.json"), InputError);
  EXPECT_THROW(parse_health_state("{\"schema\":\"other\"}", "s.json"), InputError);
  EXPECT_THROW(
      parse_health_state("{\"schema\":\"trainready-health-state\",\"version\":99}", "s.json"),
      InputError);
  EXPECT_THROW(
      parse_health_state("{\"schema\":\"trainready-health-state\",\"version\":1}", "s.json"),
      InputError);
  try {
    parse_health_state("[]", "s.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("s.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("--clear all"), std::string::npos);
  }
}

TEST(HealthState, RoundTripKeepsEverything) {
  HealthFacts f = health_replay("xid-reboot");
  const std::string once = health_state_json(f.state);
  EXPECT_EQ(health_state_json(parse_health_state(once, "x")), once);
}

}  // namespace
}  // namespace trainready
