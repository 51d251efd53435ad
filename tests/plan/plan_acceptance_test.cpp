// plan --check: a recorded plan JSON recomputed with recorded measurements (tests/data/plan/accept,
// provenance in tests/data/SOURCES.md). The expected step, run and cost are derived here from the
// job's shape and the published formulas (ZeRO §7 volume, Megatron TP/PP traffic, nccl-tests
// busbw), not copied from the tool's output; the rules fire and stay quiet; bad input is an
// InputError naming the file.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "core/input_error.h"
#include "plan/acceptance.h"
#include "plan/acceptance_inputs.h"
#include "rules/registry.h"

namespace trainready {
namespace {

const std::string kDir = std::string(TR_TEST_DATA) + "/plan/accept/";
const std::string kPlan = "plan-llama3-8b-16gpu-pinned.json";

std::string slurp(const std::string& name) {
  std::ifstream in(kDir + name);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_FALSE(s.str().empty()) << name;
  return s.str();
}

nlohmann::json json_of(const std::string& name) { return nlohmann::json::parse(slurp(name)); }

PlannedRun planned() { return read_planned_run(slurp(kPlan), kPlan, 2); }

PlanAcceptance check(const std::vector<std::string>& measured, double margin = 0.10) {
  const PlannedRun p = planned();
  Measurements m;
  for (const std::string& f : measured) read_measurement(slurp(f), f, 2, p.gpus_per_vm, m);
  const Catalog& cat = Catalog::builtin();
  return check_plan(p, m, *cat.find(p.sku), cat.storage(), margin);
}

RuleOutcome judge(const std::string& rule, const PlanAcceptance& a) {
  RuleContext ctx;
  ctx.catalog = &Catalog::builtin();
  ctx.acceptance = &a;
  return find_rule(rule)->evaluate(ctx);
}

// The job of the recorded plan, from its flags and the llama3-8b preset (Meta's model card):
// 8.03e9 parameters, 32 layers, hidden 4096, seq 8192, global batch 128; tp 2, pp 2 on 2 × 8
// H100 (dp 4), micro-batch 1, bf16 (2-byte weights, gradients, activations), DDP.
struct Job {
  double params = 8.03e9;
  int layers = 32;
  double hidden = 4096;
  double seq = 8192;
  int tp = 2, pp = 2, dp = 4, vms = 2, gpus_per_vm = 8;
  double global_batch = 128;
  double sample_bytes = 1e9;                                                // --sample-bytes 1GB
  double tokens = 100e9;                                                    // --tokens 100e9
  int accumulation() const { return static_cast<int>(global_batch) / dp; }  // micro-batch 1
  double psi() const { return params / (tp * pp); }
  double message() const { return seq * 1 * hidden * 2; }  // s·b·h·bytes
};

// The planned network of an ND96isr_H100_v5 (catalog: 8 × 400 Gb/s HCAs, efficiency 0.95, 370
// GB/s NVLink ring, 460 GB/s single-VM all-reduce).
constexpr double kVmNetwork = 8 * 400e9 / 8 * 0.95;  // 380 GB/s
constexpr double kRing = 370e9;
constexpr double kIntra = 460e9;

struct Expected {
  double step, run, cost;
};

// Step, run and cost from the formulas, with the measured values given (0: the plan's).
Expected expected(double allgpu_busbw, double pp_per_gpu, double feed_per_vm, double tp_busbw = 0) {
  const Job j;
  const nlohmann::json c = json_of(kPlan)["plan"]["candidates"][0];
  const double compute = c["compute"]["seconds"]["value"];            // compute model: an input
  const double backward = c["compute"]["backward_seconds"]["value"];  // here, not under test
  const double price = c["cost"]["usd_per_vm_hour"];
  const double planned_dp = std::min(kRing, kVmNetwork * (8.0 / (j.tp * j.pp)) / 8);  // 95 GB/s
  const double planned_all = std::min(kRing, kVmNetwork);                             // 370 GB/s
  const double dp_busbw = allgpu_busbw > 0 ? planned_dp * allgpu_busbw / planned_all : planned_dp;
  // ZeRO §7: DDP all-reduces 2·b_g·Ψ'·(n−1)/n per step; 80 % of it hides behind backward.
  const double volume = 2 * 2 * j.psi() * (j.dp - 1.0) / j.dp;
  const double dp_exposed = std::max(0.0, volume / dp_busbw - 0.8 * backward);
  const int m = j.accumulation();
  // Megatron: 4 all-reduces of s·b·h per layer and micro-batch, ring factor 2(t−1)/t.
  const double tp_s = m * (j.layers / j.pp) * 4 * j.message() * 2.0 * (j.tp - 1) / j.tp /
                      (tp_busbw > 0 ? tp_busbw : kIntra);
  // Narayanan et al.: s·b·h forward and back per micro-batch between stages.
  const double pp_s = 2.0 * m * j.message() / (pp_per_gpu > 0 ? pp_per_gpu : kVmNetwork / 8);
  const double no_data = compute + dp_exposed + tp_s + pp_s;
  const double read =
      j.global_batch * j.sample_bytes / j.vms / (feed_per_vm > 0 ? feed_per_vm : 24e9);
  const double step = no_data + std::max(0.0, read - no_data);
  const double steps = std::ceil(j.tokens / (j.global_batch * j.seq));
  const double run = steps * step;
  return {step, run, j.vms * price * run / 3600};
}

void expect_close(double got, double want, const char* what) {
  EXPECT_NEAR(got, want, 1e-9 * std::fabs(want)) << what;
}

TEST(PlanAcceptance, UnchangedPlanReproducesItsOwnPrediction) {
  const PlannedRun p = planned();
  EXPECT_EQ(p.sku, "Standard_ND96isr_H100_v5");
  EXPECT_EQ(p.gpus_per_vm, 8);
  const Expected e = expected(0, 0, 0);
  expect_close(p.step_seconds, e.step, "the plan's step, from the formulas");
  expect_close(p.run_seconds, e.run, "run");
  expect_close(*p.cost_per_run, e.cost, "cost");
  const PlanAcceptance a = check({});
  EXPECT_TRUE(a.checks.empty());
  expect_close(a.step.step_seconds.value, e.step, "recomputed, nothing measured");
  // Nothing compared is not a pass: the rules are skipped with the reason (INCOMPLETE).
  EXPECT_TRUE(judge("plan-assumption-broken", a).skipped);
  EXPECT_TRUE(judge("plan-cluster-misses-plan", a).skipped);
}

TEST(PlanAcceptance, LowBusbwAndSlowFeedRecomputeStepRunAndCost) {
  // Recorded here: 16 ranks on CPU (0.18 GB/s at 64 MiB, the largest size: the 4.0 GB gradient
  // all-reduce is beyond the sweep) and a local disk at 2.75 GB/s against 24 GB/s of NVMe.
  const nlohmann::json bench = json_of("bench-allreduce-16rank-cpu.json");
  const double busbw =
      bench["bench"]["sizes"].back()["out_of_place"]["busbw_gbytes_per_s"].get<double>() * 1e9;
  const double feed = json_of("bench-storage-local.json")["storage"]["jobs"][0]["read"]["bw_bytes"];
  const PlanAcceptance a = check({"bench-allreduce-16rank-cpu.json", "bench-storage-local.json"});
  ASSERT_EQ(a.checks.size(), 2u);
  EXPECT_EQ(a.checks[0].id, "inter-vm-busbw");
  expect_close(a.checks[0].measured.value, busbw, "clamped to the largest size");
  expect_close(a.checks[0].assumed.value, kRing, "assumed all-GPU busbw");
  EXPECT_NE(a.checks[0].notes[0].find("does not reach"), std::string::npos) << a.checks[0].notes[0];
  EXPECT_EQ(a.checks[1].id, "storage-feed");
  expect_close(a.checks[1].assumed.value, 24e9, "8 NVMe disks × 3 GB/s");
  // Each alone, then both.
  expect_close(a.checks[0].step_seconds, expected(busbw, 0, 0).step, "busbw alone");
  expect_close(a.checks[1].step_seconds, expected(0, 0, feed).step, "feed alone");
  const Expected e = expected(busbw, 0, feed);
  expect_close(a.step.step_seconds.value, e.step, "step");
  expect_close(a.step.run_seconds.value, e.run, "run");
  ASSERT_TRUE(a.cost.has_value());
  expect_close(a.cost->per_run.value, e.cost, "cost");
  EXPECT_GT(e.step, 2 * a.planned.step_seconds);  // far off: the rules must say so

  const RuleOutcome broken = judge("plan-assumption-broken", a);
  ASSERT_EQ(broken.findings.size(), 2u);
  EXPECT_NE(
      broken.findings[0].message.find("the plan assumed 370 GB/s of all-reduce bus bandwidth"),
      std::string::npos)
      << broken.findings[0].message;
  EXPECT_NE(broken.findings[0].message.find("longer, and it costs $"), std::string::npos)
      << broken.findings[0].message;
  const RuleOutcome misses = judge("plan-cluster-misses-plan", a);
  ASSERT_EQ(misses.findings.size(), 1u);
  EXPECT_EQ(misses.findings[0].severity, Severity::kError);
  EXPECT_NE(misses.findings[0].message.find("misses the plan by"), std::string::npos);
  // The largest cost first in the evidence.
  EXPECT_EQ(
      misses.findings[0].evidence[0].where.source.rfind(
          a.checks[0].step_seconds > a.checks[1].step_seconds ? "bench-allreduce-16rank-cpu.json"
                                                              : "bench-storage-local.json",
          0),
      0u);
}

TEST(PlanAcceptance, SlowRailAndBusbwBelowPlanWithinTheMargin) {
  // 2 nodes × 8 rails; rail 5 at 21.4 GB/s; all-reduce 289.3 GB/s at 256 MiB, 290 at 4 GiB.
  const PlanAcceptance a = check({"fleet-bandwidth-2node-slow-rail.json"});
  ASSERT_EQ(a.checks.size(), 2u);
  EXPECT_EQ(a.checks[0].id, "inter-vm-busbw");
  const Job j;
  const double message = 2 * j.psi();  // b_g·Ψ'
  const double t = (std::log2(message) - 28) / (32 - 28);
  const double busbw = (289.3 + t * (290.0 - 289.3)) * 1e9;
  expect_close(a.checks[0].measured.value, busbw, "interpolated in log2(size)");
  EXPECT_EQ(a.checks[1].id, "slowest-link");
  expect_close(a.checks[1].measured.value, 21.4e9, "rail 5");
  expect_close(a.checks[1].assumed.value, kVmNetwork / 8, "per rail: network per GPU × 8 / 8");
  EXPECT_NE(a.checks[1].what.find("nd-0 - nd-1, rail 5"), std::string::npos) << a.checks[1].what;
  const Expected e = expected(busbw, 21.4e9, 0);
  expect_close(a.step.step_seconds.value, e.step, "step");
  expect_close(a.cost->per_run.value, e.cost, "cost");
  // Both below the plan by more than 10 %; the step only ~1 % longer: within the margin.
  EXPECT_EQ(judge("plan-assumption-broken", a).findings.size(), 2u);
  EXPECT_TRUE(judge("plan-cluster-misses-plan", a).findings.empty());
  // A margin of 0.5 % makes the same cluster miss its plan.
  EXPECT_EQ(
      judge("plan-cluster-misses-plan", check({"fleet-bandwidth-2node-slow-rail.json"}, 0.005))
          .findings.size(),
      1u);
}

TEST(PlanAcceptance, HealthySweepIsQuiet) {
  const PlanAcceptance a = check({"bench-allreduce-16rank-healthy.json"});
  ASSERT_EQ(a.checks.size(), 1u);
  EXPECT_GT(a.checks[0].ratio, 1.0);
  EXPECT_TRUE(judge("plan-assumption-broken", a).findings.empty());
  EXPECT_TRUE(judge("plan-cluster-misses-plan", a).findings.empty());
  expect_close(a.step.step_seconds.value, a.planned.step_seconds, "hidden communication");
}

TEST(PlanAcceptance, BusbwInterpolatesInLogSizeAndClampsAtTheEnds) {
  BusbwSweep s;
  s.points = {{1024, 1e9}, {4096, 3e9}};
  bool clamped = true;
  EXPECT_DOUBLE_EQ(busbw_at(s, 2048, &clamped), 2e9);
  EXPECT_FALSE(clamped);
  EXPECT_DOUBLE_EQ(busbw_at(s, 4096, &clamped), 3e9);
  EXPECT_FALSE(clamped);
  EXPECT_DOUBLE_EQ(busbw_at(s, 1 << 20, &clamped), 3e9);
  EXPECT_TRUE(clamped);
  EXPECT_DOUBLE_EQ(busbw_at(s, 8, &clamped), 1e9);
  EXPECT_TRUE(clamped);
}

// Each bad input: an InputError naming the file and saying what is wrong.
void expect_input_error(const std::function<void()>& f, const std::string& file,
                        const std::string& what, bool with_line = false) {
  try {
    f();
    ADD_FAILURE() << "no error for " << what;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    if (with_line) {
      EXPECT_GT(e.line(), 0) << e.what();
    }
  }
}

TEST(PlanAcceptance, BadInputNamesTheFileAndLine) {
  const std::string plan = slurp(kPlan);
  Measurements m;
  expect_input_error([&] { read_measurement(plan, "p.json", 2, 8, m); }, "p.json",
                     "a plan, not a measurement");
  expect_input_error([&] { read_planned_run(slurp("bench-storage-local.json"), "s.json", 2); },
                     "s.json", "the report of `bench storage`, not a plan");
  nlohmann::json j = nlohmann::json::parse(plan);
  j["schema_version"] = 1;
  expect_input_error([&] { read_planned_run(j.dump(1), "old.json", 2); }, "old.json",
                     "JSON schema_version 1, this trainready reads 2", true);
  j = nlohmann::json::parse(plan);
  j["plan"]["candidates"][0]["compute"].erase("seconds");
  expect_input_error([&] { read_planned_run(j.dump(1), "cut.json", 2); }, "cut.json",
                     "/plan/candidates/0/compute/seconds/value: missing", true);
  j = nlohmann::json::parse(plan);
  j["plan"]["candidates"][0]["vms"] = "two";
  expect_input_error([&] { read_planned_run(j.dump(1), "t.json", 2); }, "t.json",
                     "/plan/candidates/0/vms: expected a whole number", true);
  expect_input_error([&] { read_planned_run(plan.substr(0, 500), "trunc.json", 2); }, "trunc.json",
                     "", true);
  // Edited by hand: a faster step than its own inputs give.
  j = nlohmann::json::parse(plan);
  j["plan"]["candidates"][0]["step_seconds"]["value"] = 9.0;
  const PlannedRun edited = read_planned_run(j.dump(1), "edited.json", 2);
  const Catalog& cat = Catalog::builtin();
  expect_input_error([&] { check_plan(edited, {}, *cat.find(edited.sku), cat.storage(), 0.1); },
                     "edited.json", "does not follow from its own inputs");
  // A fleet report without --bandwidth, a sweep with wrong results.
  nlohmann::json f = json_of("fleet-bandwidth-2node-slow-rail.json");
  f.erase("pair_bandwidth");
  expect_input_error([&] { read_measurement(f.dump(1), "f.json", 2, 8, m); }, "f.json",
                     "a fleet report without --bandwidth");
  nlohmann::json b = json_of("bench-allreduce-16rank-cpu.json");
  b["bench"]["wrong"] = 3;
  expect_input_error([&] { read_measurement(b.dump(1), "w.json", 2, 8, m); }, "w.json",
                     "wrong results", true);
  b = json_of("bench-allreduce-16rank-cpu.json");
  b["tool"]["name"] = "other";
  expect_input_error([&] { read_measurement(b.dump(1), "o.json", 2, 8, m); }, "o.json",
                     "not a trainready JSON report");
}

TEST(PlanAcceptance, OtherCollectivesAndFewerRanksAreNotedNotUsed) {
  nlohmann::json b = json_of("bench-allreduce-16rank-cpu.json");
  b["bench"]["collective"] = "reduce_scatter";
  Measurements m;
  read_measurement(b.dump(1), "rs.json", 2, 8, m);
  EXPECT_TRUE(m.inter_vm.empty());
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find("bench reduce_scatter not used"), std::string::npos);
  // Eight ranks or fewer: inside one VM of eight GPUs, the tensor-parallel figure.
  b = json_of("bench-allreduce-16rank-cpu.json");
  b["bench"]["ranks"] = 8;
  read_measurement(b.dump(1), "8.json", 2, 8, m);
  ASSERT_EQ(m.intra_vm.size(), 1u);
  EXPECT_EQ(m.intra_vm[0].ranks, 8);
}

// A sweep inside one VM (8 ranks, 8 GPUs per VM) replaces the tensor-parallel all-reduce's
// busbw, read at one tensor-parallel message: s·b·h·2 bytes = 64 MiB, the sweep's last size.
TEST(PlanAcceptance, IntraVmSweepRecomputesTensorParallelTraffic) {
  nlohmann::json b = json_of("bench-allreduce-16rank-cpu.json");
  b["bench"]["ranks"] = 8;
  const PlannedRun p = planned();
  Measurements m;
  read_measurement(b.dump(1), "intra.json", 2, p.gpus_per_vm, m);
  const Catalog& cat = Catalog::builtin();
  const PlanAcceptance a = check_plan(p, m, *cat.find(p.sku), cat.storage(), 0.1);
  ASSERT_EQ(a.checks.size(), 1u);
  EXPECT_EQ(a.checks[0].id, "intra-vm-busbw");
  const double busbw =
      b["bench"]["sizes"].back()["out_of_place"]["busbw_gbytes_per_s"].get<double>() * 1e9;
  EXPECT_EQ(Job().message(), 67108864.0);
  expect_close(a.checks[0].measured.value, busbw, "at 64 MiB");
  expect_close(a.checks[0].assumed.value, kIntra, "the catalog's single-VM figure");
  expect_close(a.step.step_seconds.value, expected(0, 0, 0, busbw).step, "step");
  EXPECT_EQ(judge("plan-cluster-misses-plan", a).findings.size(), 1u);
}

// A --feed search (recorded here) where every trial met its demand: the most delivered is a lower
// bound on what the path can feed, said in a note, and still replaces the plan's rate.
TEST(PlanAcceptance, FeedSearchIsALowerBound) {
  const nlohmann::json f = json_of("bench-storage-feed.json");
  double most = 0;
  for (const auto& t : f["storage"]["feed"]["trials"])
    most = std::max(most, t["delivered_bytes_per_second"].get<double>());
  const PlanAcceptance a = check({"bench-storage-feed.json"});
  ASSERT_EQ(a.checks.size(), 1u);
  EXPECT_EQ(a.checks[0].id, "storage-feed");
  expect_close(a.checks[0].measured.value, most, "the most delivered in a trial");
  ASSERT_FALSE(a.checks[0].notes.empty());
  EXPECT_NE(a.checks[0].notes[0].find("at least"), std::string::npos) << a.checks[0].notes[0];
  expect_close(a.step.step_seconds.value, expected(0, 0, most).step, "step");
}

// A bandwidth of 0 (a failed step, a dead link) is no figure to plan with: the models would read
// it as free communication. Left out with a note, or refused when nothing else is left.
TEST(PlanAcceptance, ZeroBandwidthIsNeverTakenAsFree) {
  nlohmann::json f = json_of("fleet-bandwidth-2node-slow-rail.json");
  for (auto& p : f["pair_bandwidth"]["matrices"][5]["pairs"]) p["gbytes_per_s"] = 0.0;
  f["pair_bandwidth"]["allreduce"]["points"][3]["busbw_gbytes_per_s"] = 0.0;
  Measurements m;
  read_measurement(f.dump(1), "z.json", 2, 8, m);
  ASSERT_TRUE(m.slowest_link.has_value());
  EXPECT_DOUBLE_EQ(m.slowest_link->bytes_per_s, 47.1e9);  // rail 0, the next lowest
  ASSERT_EQ(m.inter_vm.size(), 1u);
  EXPECT_EQ(m.inter_vm[0].points.size(), 3u);
  EXPECT_EQ(m.notes.size(), 2u);
  nlohmann::json b = json_of("bench-allreduce-16rank-cpu.json");
  for (auto& s : b["bench"]["sizes"]) s["out_of_place"]["busbw_gbytes_per_s"] = 0.0;
  expect_input_error([&] { read_measurement(b.dump(1), "b0.json", 2, 8, m); }, "b0.json",
                     "no size with a bus bandwidth above 0", true);
}

}  // namespace
}  // namespace trainready
