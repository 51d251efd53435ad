#include "report/sample_reports.h"

#include <cmath>
#include <memory>

#include "support/node_builder.h"

namespace trainready::test {

const char* const kHostileHost = "<script>alert(1)</script>\x1b[31m";

namespace {

RuleRun run(const std::string& id, const std::string& node, RuleRun::Outcome o,
            const std::string& detail = "") {
  return RuleRun{id, node, o, detail};
}

Finding finding(const std::string& id, Severity s, const std::string& node,
                const std::string& message) {
  Finding f;
  f.rule_id = id;
  f.severity = s;
  f.node = node;
  f.message = message;
  return f;
}

SkuEntry named_sku(const std::string& name) {
  SkuEntry s;
  s.name = name;
  return s;
}

const SkuEntry& nd_h100() {
  static const SkuEntry sku = [] {
    SkuEntry s;
    s.name = "Standard_ND96isr_H100_v5";
    s.gpu_model = "H100";
    s.gpu_count = 8;
    s.ib_ports = 8;
    s.ib_rate_gbits_per_s = 400;
    return s;
  }();
  return sku;
}

}  // namespace

Report doctor_report() {
  Report r;
  r.command = "doctor";
  r.tool_version = "0.1.0";
  r.catalog_origin = "built-in catalog";
  NodeFacts a = healthy_nd_h100(kHostileHost);
  NodeFacts b = healthy_nd_h100("ndh100-b01");
  r.nodes = {a, b};
  Finding e = finding("ib-port-not-active", Severity::kError, kHostileHost,
                      "mlx5_ib3 port 1 is DOWN/Polling \"quoted\" & <tagged>");
  e.evidence.push_back(
      {"state: 1: DOWN \x1b[1mbold\x1b[0m", {"/sys/class/infiniband/mlx5_ib3/ports/1/state", 1}});
  e.evidence.push_back(
      {"phys_state: 2: Polling", {"/sys/class/infiniband/mlx5_ib3/ports/1/phys_state", 0}});
  e.cause = "No link partner answers: the VM is outside the InfiniBand partition of the others.";
  e.fix = "Redeploy into one scale set with singlePlacementGroup=true.";
  Finding w = finding("gpudirect-rdma-disabled", Severity::kWarning, "ndh100-b01",
                      "nvidia_peermem is not loaded");
  w.fix = "modprobe nvidia_peermem";
  Finding i =
      finding("nccl-topo-file-unset", Severity::kInfo, "ndh100-b01", "NCCL_TOPO_FILE is unset");
  r.evaluation.findings = {e, w, i};
  r.evaluation.skipped = {
      {"gpu-memory-errors", kHostileHost, "missing: NVML not found <libnvidia-ml.so.1>"}};
  r.evaluation.notes = {
      {"pcie-link-degraded", "ndh100-b01", "0000:01:00.0: link speed unreadable"}};
  r.evaluation.runs = {
      run("gpu-memory-errors", kHostileHost, RuleRun::Outcome::kSkipped, "missing: NVML not found"),
      run("gpudirect-rdma-disabled", kHostileHost, RuleRun::Outcome::kPassed),
      run("gpudirect-rdma-disabled", "ndh100-b01", RuleRun::Outcome::kFailed, w.message),
      run("ib-port-not-active", kHostileHost, RuleRun::Outcome::kFailed, e.message),
      run("ib-port-not-active", "ndh100-b01", RuleRun::Outcome::kPassed),
      run("nccl-topo-file-unset", "ndh100-b01", RuleRun::Outcome::kFailed, i.message),
      run("cluster-pkey-mismatch", "", RuleRun::Outcome::kPassed),
  };
  r.evaluation.evaluations = static_cast<int>(r.evaluation.runs.size());
  r.verdict = {VerdictStatus::kNotReady, "NOT READY: 1 of 2 nodes cannot run multi-node training"};
  r.exit_code = 1;
  return r;
}

Report nccl_tests_report() {
  Report r;
  r.command = "nccl-tests";
  r.tool_version = "0.1.0";
  auto t = std::make_shared<NcclTestsFacts>();
  t->source = "runs/all_reduce \"perf\" <16 nodes>.txt";
  t->collective = "all_reduce";
  for (int k = 3; k <= 33; k += 2) {
    NcclTestsRow row;
    row.size_bytes = std::uint64_t{1} << k;
    row.count = row.size_bytes / 4;
    row.type = "float";
    row.redop = "sum";
    // A saturating curve: small sizes latency-bound, a plateau near 360 GB/s.
    const double bw = 370.0 * (1 - std::exp(-static_cast<double>(row.size_bytes) / 6e7));
    row.oop_busbw = bw;
    row.ip_busbw = bw * 0.98;
    row.oop_wrong = 0;
    row.ip_wrong = 0;
    t->rows.push_back(row);
  }
  r.nccl_tests = t;
  BusbwExpectation e;
  e.known = true;
  e.sku = &nd_h100();
  e.sku_origin = "--sku";
  e.nodes = 2;
  e.expected_gbytes = 380;
  e.formula = "min(460, 8 x 400 Gb/s / 8 x 0.95) = 380 GB/s";
  r.busbw_expected = e;
  r.evaluation.findings = {finding("nccl-tests-busbw-low", Severity::kWarning, "",
                                   "busbw 366 GB/s at 8 GiB is 0.96 of the expected 380 GB/s")};
  r.evaluation.runs = {run("nccl-tests-busbw-drop", "", RuleRun::Outcome::kPassed),
                       run("nccl-tests-busbw-low", "", RuleRun::Outcome::kFailed, "busbw low"),
                       run("nccl-tests-wrong-results", "", RuleRun::Outcome::kPassed)};
  r.evaluation.evaluations = 3;
  r.verdict = {VerdictStatus::kReadyWithWarnings, "OK WITH WARNINGS: busbw a little low"};
  return r;
}

Report bench_collective_report() {
  Report r;
  r.command = "bench allreduce";
  r.tool_version = "0.1.0";
  auto c = std::make_shared<CollectiveRun>();
  c->options.min_bytes = 8;
  c->options.max_bytes = 64ull << 20;
  c->result.backend = "mpi";
  c->result.ranks = 4;
  c->result.busbw_factor = 1.5;
  for (std::uint64_t s = 8; s <= (64ull << 20); s *= 4) {
    SizeResult z;
    z.size_bytes = s;
    const double bw = 9.0 * (1 - std::exp(-static_cast<double>(s) / 2e5));
    z.out_of_place.busbw = bw;
    z.out_of_place.algbw = bw / 1.5;
    z.out_of_place.wrong = 0;
    z.in_place.busbw = bw * 1.05;
    z.in_place.algbw = bw * 1.05 / 1.5;
    z.in_place.wrong = 0;
    c->result.sizes.push_back(z);
  }
  r.collective = c;
  r.evaluation.runs = {run("nccl-tests-busbw-low", "", RuleRun::Outcome::kSkipped,
                           "expected busbw unknown: pass --sku")};
  r.evaluation.skipped = {{"nccl-tests-busbw-low", "", "expected busbw unknown: pass --sku"}};
  r.evaluation.evaluations = 1;
  r.verdict = {VerdictStatus::kIncomplete, "INCOMPLETE: busbw not judged (no --sku)"};
  return r;
}

Report bench_storage_feed_report() {
  Report r;
  r.command = "bench storage";
  r.tool_version = "0.1.0";
  auto s = std::make_shared<StorageRun>();
  s->info.path = "/mnt/data/<unet3d>";
  s->info.files = {{"/mnt/data/<unet3d>/a.npz", 1 << 20}, {"/mnt/data/<unet3d>/b.npz", 1 << 20}};
  FeedOptions o;
  o.profile.name = "unet3d-h100";
  o.profile.accelerator = "H100";
  o.profile.au_threshold = 0.9;
  s->feed_options = o;
  FeedSearch search;
  auto f = std::make_shared<StorageBenchFacts>();
  f->path = s->info.path;
  f->feed = true;
  f->profile = "unet3d-h100";
  f->accelerator = "H100";
  f->au_threshold = 0.9;
  f->demand_per_accelerator_bytes_per_s = 2.9e9;
  for (int n : {1, 2, 4, 8, 6, 7}) {
    FeedResult t;
    t.accelerators = n;
    t.demand_bytes_per_s = 2.9e9 * n;
    t.delivered_bytes_per_s = std::min(t.demand_bytes_per_s, 19e9);
    t.au = std::min(0.99, 19e9 / t.demand_bytes_per_s * 0.99);
    t.meets = t.au >= 0.9;
    search.trials.push_back(t);
    f->trials.push_back({n, t.au, t.delivered_bytes_per_s, t.demand_bytes_per_s, t.meets});
  }
  search.largest_meeting = 6;
  f->largest_meeting = 6;
  s->feed = search;
  r.storage = s;
  r.storage_facts = f;
  r.evaluation.runs = {run("storage-feed-short", "", RuleRun::Outcome::kPassed)};
  r.evaluation.evaluations = 1;
  r.verdict = {VerdictStatus::kReady, "OK: this path keeps 6 H100s busy on unet3d"};
  return r;
}

Report bench_storage_raw_report() {
  Report r;
  r.command = "bench storage";
  r.tool_version = "0.1.0";
  auto s = std::make_shared<StorageRun>();
  s->info.path = "/mnt/blob";
  RawReadOptions o;
  o.random = true;
  o.block_size = 128 * 1024;
  s->raw_options = o;
  RawReadResult raw;
  raw.engine = "io_uring";
  raw.direct = true;
  raw.bw_bytes = 4.2e9;
  raw.iops = 32000;
  raw.ios = 131072;
  raw.cache_state = "cold-verified";
  raw.clat.mean_ns = 900000;
  raw.clat.percentiles = {{"50.000000", 800000}, {"99.000000", 2400000}, {"99.900000", 4100000}};
  s->raw = raw;
  r.storage = s;
  auto f = std::make_shared<StorageBenchFacts>();
  f->path = "/mnt/blob";
  f->raw_bw_bytes_per_s = 4.2e9;
  f->profile = "unet3d-h100";
  f->accelerator = "H100";
  f->demand_per_accelerator_bytes_per_s = 2.9e9;
  f->accelerators_needed = 8;
  f->accelerators_origin = "--sku Standard_ND96isr_H100_v5";
  r.storage_facts = f;
  r.evaluation.findings = {finding("storage-bandwidth-short", Severity::kError, "",
                                   "4.2 GB/s delivered; 8 H100s need 23.2 GB/s")};
  r.evaluation.runs = {run("storage-bandwidth-short", "", RuleRun::Outcome::kFailed, "short")};
  r.evaluation.evaluations = 1;
  r.verdict = {VerdictStatus::kNotReady, "PROBLEMS: the path cannot feed 8 H100s"};
  r.exit_code = 1;
  return r;
}

Report plan_report() {
  Report r;
  r.command = "plan";
  r.tool_version = "0.1.0";
  auto p = std::make_shared<Plan>();
  p->job.model = "llama3-8b";
  p->scale_origin = "--gpus 16";
  p->recommended = true;
  p->reasons = {"fits with ZeRO-1 at 62 GiB of 72 GiB usable", "InfiniBand between VMs"};
  p->checklist = {"trainready doctor on every node", "all_reduce_perf across both VMs"};
  const double gib = 1024.0 * 1024 * 1024;
  struct Row {
    int vms;
    double states, act, usable, step, usd;
    bool fits;
  };
  // Candidates point at catalog entries; these live as long as the program.
  static const SkuEntry skus[] = {named_sku("Standard_ND96isr_H100_v5"),
                                  named_sku("Standard_ND96amsr_A100_v4"),
                                  named_sku("Standard_NC80adis_H100_v5")};
  const Row rows[] = {{2, 30, 24, 72, 5.1, 2100, true},
                      {2, 30, 24, 72, 9.8, 3400, true},
                      {8, 60, 24, 84, 21.0, 9800, false}};
  for (int i = 0; i < 3; ++i) {
    Candidate c;
    c.sku = &skus[i];
    c.vms = rows[i].vms;
    c.gpus = rows[i].vms * 8;
    c.zero = 1;
    c.memory.states = quantity(rows[i].states * gib, "B", "");
    c.memory.activations = quantity(rows[i].act * gib, "B", "");
    c.memory.buffers = quantity(1.5 * gib, "B", "");
    c.memory.context = quantity(3 * gib, "B", "");
    c.memory.total = quantity((rows[i].states + rows[i].act + 4.5) * gib, "B", "");
    c.memory.usable = quantity(rows[i].usable * gib, "B", "");
    c.memory.fits = rows[i].fits;
    c.step_seconds = quantity(rows[i].step, "s", "");
    c.utilization = quantity(0.82, "", "");
    c.run_seconds = quantity(rows[i].step * 20000, "s", "");
    c.dominant_wait = i == 2 ? "communication" : "none";
    CostEstimate cost;
    cost.per_run = quantity(rows[i].usd, "USD", "");
    cost.per_hour = quantity(rows[i].usd / (rows[i].step * 20000 / 3600), "USD", "");
    c.cost = cost;
    p->candidates.push_back(c);
  }
  r.plan = p;
  r.evaluation.runs = {run("plan-memory-tight", "", RuleRun::Outcome::kPassed)};
  r.evaluation.evaluations = 1;
  r.verdict = {VerdictStatus::kReady, "OK: 2 x Standard_ND96isr_H100_v5, $2,100 per run"};
  return r;
}

Report lint_report() {
  Report r;
  r.command = "lint";
  r.tool_version = "0.1.0";
  auto l = std::make_shared<LintInputs>();
  l->files = {"infra/main.arm.json", "infra/params <prod>.json"};
  l->resources = 12;
  SuppressedFinding s;
  s.finding =
      finding("deploy-vnet-rdma-overlap", Severity::kError, "", "VNet 172.16.0.0/12 overlaps");
  s.finding.resource = "Microsoft.Network/virtualNetworks/hpc-vnet";
  s.justification = "no InfiniBand VMs in this VNet yet";
  s.kind = "file";
  s.where = {".trainready-suppressions.json", 3};
  l->suppressed = {s};
  l->input_notes = {"customData: [base64(parameters('script'))] could not be resolved"};
  r.lint = l;
  Finding f = finding("deploy-ib-spg-off", Severity::kError, "",
                      "scale set 'gpu-vmss' has singlePlacementGroup=false");
  f.resource = "Microsoft.Compute/virtualMachineScaleSets/gpu-vmss";
  f.location = {"infra/main.arm.json", 42};
  f.fix = "Set \"singlePlacementGroup\": true";
  r.evaluation.findings = {f};
  r.evaluation.runs = {run("deploy-ib-spg-off", "", RuleRun::Outcome::kFailed, f.message),
                       run("deploy-vnet-rdma-overlap", "", RuleRun::Outcome::kFailed, "overlap"),
                       run("deploy-vm-size-mixed", "", RuleRun::Outcome::kPassed)};
  r.evaluation.evaluations = 3;
  r.verdict = {VerdictStatus::kNotReady, "PROBLEMS: 1 error (1 suppressed)"};
  r.exit_code = 1;
  return r;
}

std::vector<NamedReport> all_sample_reports() {
  return {{"doctor", doctor_report()},
          {"nccl-tests", nccl_tests_report()},
          {"bench-allreduce", bench_collective_report()},
          {"bench-storage-feed", bench_storage_feed_report()},
          {"bench-storage-raw", bench_storage_raw_report()},
          {"plan", plan_report()},
          {"lint", lint_report()}};
}

}  // namespace trainready::test
