// Issue 32's GPU series and hung probes: NVLink, ECC, remapped-row and PCIe replay counters and
// persistent throttling over recorded timelines (tests/data/health/gpu-counters), the
// `nvidia-smi -q` reader, and a probe that does not return within its deadline — recorded
// (tests/data/health/hung-probe) and live, with a fake nvidia-smi that sleeps.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "core/root.h"
#include "health/health_machine.h"
#include "health/health_outputs.h"
#include "health/health_probe_run.h"
#include "health/health_replay.h"
#include "health/health_sample.h"
#include "health/health_smi.h"
#include "health/health_state_file.h"
#include "rules/health/health_judge.h"
#include "support/paths.h"
#include "support/run_cli.h"

namespace trainready {
namespace {

namespace fs = std::filesystem;

using test::health_replay;
using test::health_samples;
using test::health_timeline;

const HealthVerdict* find(const std::vector<HealthVerdict>& v, const std::string& subject) {
  for (const HealthVerdict& x : v)
    if (x.subject.find(subject) != std::string::npos) return &x;
  return nullptr;
}

std::string fake_smi(const std::string& dir, const std::string& body) {
  const std::string path = dir + "/nvidia-smi";
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(HealthTimeline, HungProbeIsADriverThatMayBeUnresponsiveReportedToAzure) {
  EXPECT_TRUE(health_verdicts(health_replay("hung-probe", 1), "health-probe-hung").empty());
  HealthFacts f = health_replay("hung-probe", 2);
  ASSERT_TRUE(f.state.probes.count("nvidia-smi -q"));
  EXPECT_TRUE(f.state.probes.at("nvidia-smi -q").hung);
  auto v = health_verdicts(f, "health-probe-hung");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].severity, Severity::kError);
  EXPECT_EQ(v[0].action, RepairAction::kReportAzure);
  EXPECT_EQ(v[0].ghr_category, "Resource.Hpc.Unhealthy.UnhealthyGPUNvidiasmi");
  EXPECT_NE(v[0].message.find("may be unresponsive"), std::string::npos) << v[0].message;
  // Azure's order: drain, evidence, GHR, then reboot.
  const std::string& fix = v[0].fix;
  EXPECT_LT(fix.find("drain"), fix.find("collect the evidence"));
  EXPECT_LT(fix.find("collect the evidence"), fix.find("Guest Health Report"));
  EXPECT_LT(fix.find("Guest Health Report"), fix.find("reboot"));
  // Hung twice: two hangs kept.
  EXPECT_EQ(health_replay("hung-probe", 3).state.probes.at("nvidia-smi -q").hang_times.size(), 2u);
  // After a reboot it answers again: cleared.
  HealthFacts after = health_replay("hung-probe");
  EXPECT_FALSE(after.state.probes.at("nvidia-smi -q").hung);
  EXPECT_TRUE(health_verdicts(after, "health-probe-hung").empty());
}

TEST(HealthState, HungProbeInTheSameBootStaysUntilClearProbes) {
  HealthFacts f = health_replay("hung-probe", 3);
  HealthSample ok;
  ok.time = f.state.updated_at + 30;
  ok.boot_time = f.state.boot_time;  // same boot
  ok.probes.push_back({"nvidia-smi -q", false, 30, 1.2, "answered in 1.2 s", "test"});
  advance_health(f.state, ok);
  EXPECT_TRUE(f.state.probes.at("nvidia-smi -q").hung);
  EXPECT_NE(clear_health(f.state, "probes").find("cleared"), std::string::npos);
  EXPECT_TRUE(health_verdicts(f, "health-probe-hung").empty());
}

TEST(HealthTimeline, GpuCountersReachTheirLevels) {
  HealthFacts quiet =
      health_replay("gpu-counters", 6);  // t000..t300: HW Slowdown in 5 of 10 minutes
  for (const char* id : {"health-gpu-nvlink-errors", "health-gpu-ecc", "health-gpu-pcie-replay"})
    EXPECT_TRUE(health_verdicts(quiet, id).empty()) << id;
  auto warn = health_verdicts(quiet, "health-gpu-throttle");
  ASSERT_EQ(warn.size(), 1u);
  EXPECT_EQ(warn[0].severity, Severity::kWarning);  // active, not yet persistent (AzNHC warns)
  // t360: 6 of the last 10 minutes, GPUd's 0.6/min.
  auto hw = health_verdicts(health_replay("gpu-counters", 7), "health-gpu-throttle");
  ASSERT_EQ(hw.size(), 1u);
  EXPECT_EQ(hw[0].severity, Severity::kError);
  EXPECT_EQ(hw[0].ghr_category, "Resource.Hpc.Unhealthy.ManualInvestigation");

  HealthFacts f = health_replay("gpu-counters");
  const GpuSeries& g = f.state.gpu_series.at("00000001:00:00.0");
  EXPECT_EQ(g.counters.at("pcie_replays").last, 90u);
  EXPECT_EQ(g.counters.at("ecc_sram_uncorrectable_aggregate").last, 1u);
  EXPECT_EQ(g.remap_banks.at("Max"), 639u);
  auto nv = health_verdicts(f, "health-gpu-nvlink-errors");
  const HealthVerdict* rec = find(nv, "nvlink_recovery_errors");
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->action, RepairAction::kReportAzure);
  EXPECT_EQ(rec->ghr_category, "Resource.Hpc.Unhealthy.NvLink");
  // 6000 CRC errors in 60 s is 100/s: DCGM's failure rate (at or above), fatal.
  bool crc_fatal = false;
  for (const HealthVerdict& x : nv)
    crc_fatal |=
        x.subject.find("nvlink_crc_errors") != std::string::npos && x.severity == Severity::kError;
  EXPECT_TRUE(crc_fatal);
  auto pcie = health_verdicts(f, "health-gpu-pcie-replay");
  ASSERT_EQ(pcie.size(), 1u);
  EXPECT_EQ(pcie[0].severity, Severity::kWarning);
  EXPECT_NE(pcie[0].message.find("30/min"), std::string::npos) << pcie[0].message;
  auto ecc = health_verdicts(f, "health-gpu-ecc");
  const HealthVerdict* sram = find(ecc, "ecc_sram_uncorrectable_volatile");
  ASSERT_NE(sram, nullptr);
  EXPECT_EQ(sram->ghr_category, "Resource.Hpc.Unhealthy.DBEOverLimit");
  EXPECT_EQ(sram->severity, Severity::kError);
}

TEST(HealthState, ClearGpusRestartsThrottleWindowsAndRates) {
  HealthFacts f = health_replay("gpu-counters");
  ASSERT_FALSE(health_verdicts(f, "health-gpu-pcie-replay").empty());
  clear_health(f.state, "gpus");
  EXPECT_TRUE(health_verdicts(f, "health-gpu-pcie-replay").empty());
  EXPECT_TRUE(f.state.gpu_series.begin()->second.throttle_minutes.empty());
  // A count is not a rate: an SRAM uncorrectable count stays until the GPU's counts do.
  EXPECT_FALSE(health_verdicts(f, "health-gpu-ecc").empty());
}

TEST(HealthSmi, ReadsTheCountersOfARealCapture) {
  std::ifstream in(std::string(TR_TEST_DATA) + "/node-captures/nvidia-bug-report-assembled.log");
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  const std::string q = text.substr(text.find("==============NVSMI LOG"));
  auto gpus = parse_health_smi_query(q, "bug-report");
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].pci, "00000000:10:1C.0");
  EXPECT_EQ(gpus[0].counters.at("ecc_dram_correctable_volatile"), 177u);
  EXPECT_EQ(gpus[0].counters.at("ecc_sram_uncorrectable_aggregate"), 0u);
  EXPECT_EQ(gpus[0].counters.at("remapped_rows_correctable"), 1u);
  EXPECT_EQ(gpus[0].remap_banks.at("Max"), 639u);
  EXPECT_EQ(gpus[0].remap_banks.at("None"), 0u);
  EXPECT_THROW(parse_health_smi_query("Mon Nov 29 ... | NVIDIA-SMI 535", "x"), InputError);
}

TEST(HealthProbe, AProbeThatSleepsIsKilledAtItsDeadline) {
  const std::string dir = test::temp_dir("health-probe-run");
  const std::string smi = fake_smi(dir, "sleep 30");
  const auto t0 = std::chrono::steady_clock::now();
  const ProbeResult r = run_probe({smi, "-q"}, 500, 1 << 20);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.found);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(took, 5.0);
  const ProbeResult ok = run_probe({fake_smi(dir, "echo hello")}, 5000, 1 << 20);
  EXPECT_FALSE(ok.timed_out);
  EXPECT_EQ(ok.output, "hello\n");
  EXPECT_FALSE(run_probe({dir + "/absent"}, 500, 1 << 20).found);
}

// The CLI as a HealthCheckProgram runs it, with a fake nvidia-smi that sleeps: the run returns
// at the deadline (never hangs), exits 1 with health-probe-hung, and the hang stays in the state.
TEST(HealthCli, HungNvidiaSmiIsAFindingAndTheRunStillReturns) {
  const std::string dir = test::temp_dir("health-cli-hung");
  const std::string smi = fake_smi(dir, "sleep 60");
  const std::string state = dir + "/state.json";
  const auto t0 = std::chrono::steady_clock::now();
  auto r = test::run_trainready({"health", "--state", state, "--nvidia-smi", smi, "--probe-timeout",
                                 "1", "--rule", "health-probe-hung", "--metrics", dir + "/m.prom"},
                                "SLURMD_NODENAME=node2");
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, 20.0);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("health-probe-hung"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Resource.Hpc.Unhealthy.UnhealthyGPUNvidiasmi"), std::string::npos) << r.out;
  std::ifstream m(dir + "/m.prom");
  const std::string prom((std::istreambuf_iterator<char>(m)), {});
  EXPECT_NE(prom.find("trainready_health_probe_hung{node=\"node2\",probe=\"nvidia-smi -q\"} 1"),
            std::string::npos)
      << prom;
  // A later run whose nvidia-smi answers in the same boot: still flagged (sticky).
  const std::string good = fake_smi(test::temp_dir("health-cli-hung-ok"), "exit 0");
  auto again = test::run_trainready(
      {"health", "--state", state, "--nvidia-smi", good, "--rule", "health-probe-hung"},
      "SLURMD_NODENAME=node2");
  EXPECT_EQ(again.code, 1) << again.out << again.err;
}

TEST(HealthOutputs, HtmlEscapesEveryInputText) {
  HealthFacts f = health_replay("gpu-counters");
  f.state.timeline.push_back({f.state.updated_at, "mlx5_<script>alert(1)</script>/1 DOWN"});
  f.source = "/snap/\"><img src=x onerror=alert(1)>";
  const std::string html = health_html(f, {}, "report-azure", "node<b>");
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("node<b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("HW Slowdown"), std::string::npos);
}

}  // namespace
}  // namespace trainready

namespace trainready {
namespace {

// The new parts of the state file are optional on read (a state written before them loads), but
// a damaged one is the same clear error as any damaged state file (exit 2 from the CLI).
TEST(HealthState, GpuSeriesPartsOptionalButNeverHalfRead) {
  HealthFacts f = health_replay("hung-probe", 2);
  nlohmann::json j = nlohmann::json::parse(health_state_json(f.state));
  j.erase("gpu_series");
  j.erase("probes");
  j.erase("timeline");
  const HealthState old = parse_health_state(j.dump(), "old");
  EXPECT_TRUE(old.probes.empty());
  EXPECT_EQ(old.samples, 2);
  nlohmann::json bad = nlohmann::json::parse(health_state_json(f.state));
  bad["probes"]["nvidia-smi -q"]["hung"] = "yes";
  EXPECT_THROW(parse_health_state(bad.dump(), "bad"), InputError);
  const HealthState back = parse_health_state(health_state_json(f.state), "rt");
  EXPECT_EQ(back.probes.at("nvidia-smi -q").hang_times,
            f.state.probes.at("nvidia-smi -q").hang_times);
  EXPECT_EQ(back.timeline.size(), f.state.timeline.size());
  EXPECT_EQ(back.gpu_series.size(), f.state.gpu_series.size());
}

}  // namespace
}  // namespace trainready
