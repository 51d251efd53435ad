// The recommender: evaluates every candidate VM size with the models of src/plan, ranks them and
// says why. Each model is a pure function of its inputs; this file only wires them together.
#include <algorithm>
#include <cmath>

#include "core/input_error.h"
#include "core/text.h"
#include "core/units.h"
#include "plan/plan.h"

namespace trainready {
namespace {

constexpr int kMaxVms = 1000;  // largest scale set of any kind; searches stop here
constexpr double kChinchillaTokensPerParam = 20;

const char* precision_peak_key(Precision p) {
  switch (p) {
    case Precision::kFp8Mixed:
      return "fp8";
    case Precision::kFp16Mixed:
      return "fp16";
    case Precision::kFp32:
      return "tf32";
    default:
      return "bf16";
  }
}

std::string stage_name(int zero) { return zero == 0 ? "DDP" : "ZeRO-" + std::to_string(zero); }

struct Shape {
  double params = 0;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int vocab = 0;
  int seq = 0;
};

// Evaluates one size at one VM count. Everything but the ranking happens here.
// memory_only stops after the memory model: enough to search for the layout or VM count that fits.
Candidate evaluate_at(const Plan& plan, const Shape& m, const SkuEntry& sku, int vms, int zero,
                      const Catalog& catalog, bool memory_only = false) {
  const JobSpec& job = plan.job;
  Candidate c;
  c.sku = &sku;
  c.zero = zero;
  c.vms = vms;
  c.gpus = vms * sku.gpu_count;
  const int model_parallel = job.tp * job.pp;
  if (job.tp > sku.gpu_count) {
    c.runnable = false;
    c.problems.push_back("tensor parallelism " + std::to_string(job.tp) + " spans VMs (" +
                         std::to_string(sku.gpu_count) + " GPU" + (sku.gpu_count > 1 ? "s" : "") +
                         " per VM): its all-reduces in every layer need NVLink");
  }
  if (c.gpus % model_parallel != 0) {
    c.runnable = false;
    c.problems.push_back(std::to_string(c.gpus) +
                         " GPUs are not a multiple of tp × pp = " + std::to_string(model_parallel));
  }
  c.dp = std::max(1, c.gpus / model_parallel);
  const int per_step = job.micro_batch * c.dp;
  int wanted = job.global_batch.value_or(per_step);
  // A preset's batch is its benchmark's, not a constraint: more ranks than it has sequences
  // take one micro-batch each.
  auto gb_origin = job.origin.find("global-batch");
  if (wanted < per_step && gb_origin != job.origin.end() &&
      gb_origin->second.rfind("--model", 0) == 0) {
    c.notes.push_back("global batch " + std::to_string(wanted) + " (" + gb_origin->second +
                      ") raised to " + std::to_string(per_step) +
                      ": one micro-batch per data-parallel rank (--global-batch sets it)");
    wanted = per_step;
  }
  if (wanted < per_step) {
    c.runnable = false;
    c.problems.push_back("global batch " + std::to_string(wanted) +
                         " is smaller than one micro-batch "
                         "per data-parallel rank (" +
                         std::to_string(c.dp) + " × " + std::to_string(job.micro_batch) + ")");
  }
  c.accumulation = std::max(1, (wanted + per_step - 1) / per_step);
  c.global_batch = c.accumulation * per_step;
  if (c.global_batch != wanted && wanted >= per_step)
    c.notes.push_back("global batch " + std::to_string(wanted) + " rounded up to " +
                      std::to_string(c.global_batch) + " (" + std::to_string(c.accumulation) +
                      " micro-batches of " + std::to_string(job.micro_batch) + " on " +
                      std::to_string(c.dp) + " data-parallel ranks)");
  c.tokens_per_step = static_cast<double>(c.global_batch) * m.seq;

  // Memory.
  const StateBytes bytes = state_bytes(job.precision, job.optimizer);
  MemoryInputs mi;
  mi.states.params = m.params;
  mi.states.dp = c.dp;
  mi.states.tp = job.tp;
  mi.states.pp = job.pp;
  mi.states.zero = zero;
  mi.states.offload = job.offload;
  mi.states.bytes = bytes;
  mi.states.largest_layer_params = largest_layer_params(m.hidden, m.vocab, m.params, m.layers);
  if (m.layers > 0 && m.hidden > 0 && m.heads > 0) {
    ActivationInputs a;
    a.seq = m.seq;
    a.micro_batch = job.micro_batch;
    a.hidden = m.hidden;
    a.heads = m.heads;
    a.layers = m.layers;
    a.vocab = m.vocab;
    a.tp = job.tp;
    a.pp = job.pp;
    a.sequence_parallel = job.sequence_parallel.value_or(false);
    a.recompute = job.recompute;
    mi.activations = a;
  }
  mi.convention = job.convention;
  mi.gpu_memory_bytes = sku.gpu_memory_gb * 1e9;
  mi.headroom = job.headroom;
  c.memory = estimate_memory(mi);
  if (!c.memory.fits)
    c.problems.push_back("needs " + format_gb(c.memory.total.value) + " per GPU; " +
                         format_gb(c.memory.usable.value) + " usable of " +
                         format_gb(mi.gpu_memory_bytes, 0));
  if (memory_only) return c;

  // Compute.
  const char* key = precision_peak_key(job.precision);
  auto peak = sku.peak_dense_tflops.find(key);
  if (peak == sku.peak_dense_tflops.end() && std::string(key) == "fp8") {
    peak = sku.peak_dense_tflops.find("bf16");
    c.notes.push_back(sku.gpu_model + " has no FP8: planned at its BF16 peak");
  }
  if (peak == sku.peak_dense_tflops.end()) {
    c.runnable = false;
    c.problems.push_back("the catalog has no " + std::string(key) + " peak for " + sku.gpu_model);
  } else {
    c.peak_tflops = peak->second;
    c.peak_precision = peak->first;
  }
  ComputeInputs ci;
  ci.params = m.params;
  ci.layers = m.layers;
  ci.hidden = m.hidden;
  ci.seq = m.seq;
  ci.tokens_per_step = c.tokens_per_step;
  ci.gpus = c.gpus;
  ci.peak_tflops = c.peak_tflops;
  ci.mfu = job.mfu;
  ci.recompute = job.recompute;
  ci.pp = job.pp;
  ci.micro_batches = c.accumulation;
  c.compute = estimate_compute(ci);
  c.compute.seconds.source += "; peak: catalog, " + catalog.source_text(sku.peak_source);

  // Placement, then communication over the network it gives.
  c.placement = plan_placement(sku, vms);
  BusbwInputs bi;
  bi.sku = &sku;
  bi.vms = std::min(vms, c.placement.vms_per_domain);
  bi.dp_ranks_per_vm = model_parallel <= sku.gpu_count ? sku.gpu_count / model_parallel : 1;
  bi.ib_efficiency = job.ib_efficiency;
  bi.ethernet_efficiency = job.ethernet_efficiency;
  c.busbw = data_parallel_busbw(bi);
  bi.dp_ranks_per_vm = sku.gpu_count;
  c.allreduce_busbw = data_parallel_busbw(bi);
  if (c.dp <= 1)
    c.comm_path = "none (no data parallelism)";
  else if (vms == 1)
    c.comm_path = "inside one VM (" + sku.gpu_link + ")";
  else if (sku.has_infiniband())
    c.comm_path = c.placement.domains > 1 ? "InfiniBand inside each domain, Ethernet between them"
                                          : "InfiniBand between VMs (" + sku.ib_generation + ")";
  else
    c.comm_path = "front-end Ethernet between VMs (TCP, no InfiniBand)";
  CommInputs co;
  co.params = m.params;
  co.weight_bytes = bytes.weights;
  co.gradient_bytes = bytes.gradients;
  co.zero = zero;
  co.dp = c.dp;
  co.tp = job.tp;
  co.pp = job.pp;
  co.accumulation = c.accumulation;
  co.busbw = c.busbw.value;
  co.domains = c.placement.domains;
  co.vms_per_domain = c.placement.vms_per_domain;
  co.ethernet_per_vm = ethernet_bytes_per_s(sku, job.ethernet_efficiency).value;
  co.compute_seconds = c.compute.seconds.value;
  co.backward_seconds = c.compute.backward_seconds.value;
  co.overlap = job.overlap;
  c.comm = estimate_comm(co);

  // Data.
  DataInputs di;
  di.sku = &sku;
  di.storage = &catalog.storage();
  di.vms = vms;
  di.gpus = c.gpus;
  di.bytes_per_step = c.global_batch * plan.sample_bytes;
  di.step_seconds = c.compute.seconds.value + c.comm.exposed_seconds.value;
  di.dataset_bytes = plan.dataset_bytes;
  c.data = estimate_data(di);

  // Step, utilization and what the GPUs wait on.
  const double comm_wait = c.comm.exposed_seconds.value;
  const double data_wait = c.data.exposed_seconds.value;
  const double step = c.compute.seconds.value + comm_wait + data_wait;
  c.step_seconds = quantity(step, "s", "compute + exposed communication + exposed data");
  c.step_seconds.in("compute", c.compute.seconds.value, "s").in("communication", comm_wait, "s");
  c.step_seconds.in("data", data_wait, "s");
  c.utilization = quantity(step > 0 ? c.compute.seconds.value / step : 0, "",
                           "compute / step: the share of each step the GPUs compute");
  c.utilization.in("compute", c.compute.seconds.value, "s").in("step", step, "s");
  const double threshold = 0.02 * step;
  if (comm_wait <= threshold && data_wait <= threshold)
    c.dominant_wait = "none";
  else
    c.dominant_wait = comm_wait >= data_wait ? "communication" : "data";

  // Run length and cost.
  const double steps = c.tokens_per_step > 0 ? std::ceil(plan.total_tokens / c.tokens_per_step) : 0;
  c.steps = quantity(steps, "", "ceil(total_tokens / tokens_per_step)");
  c.steps.in("total_tokens", plan.total_tokens).in("tokens_per_step", c.tokens_per_step);
  c.run_seconds = quantity(steps * step, "s", "steps × step");
  c.run_seconds.in("steps", steps).in("step", step, "s");
  std::optional<double> user_price;
  for (const auto& [name, usd] : job.prices) {
    if (catalog.find(name) == &sku) user_price = usd;
  }
  auto origin = job.origin.find("price");
  c.price = choose_price(sku, job.region, job.spot, user_price,
                         origin == job.origin.end() ? "--price" : origin->second);
  if (c.price) {
    CostInputs cost;
    cost.price = *c.price;
    cost.vms = vms;
    cost.gpus_per_vm = sku.gpu_count;
    cost.run_seconds = c.run_seconds.value;
    cost.utilization = c.utilization.value;
    c.cost = estimate_cost(cost);
  }
  return c;
}

// With the ZeRO stage named by the job, or else the least sharding that fits: DDP, then ZeRO-1
// and -2 (the same traffic as DDP), then ZeRO-3 (half as much again).
Candidate evaluate(const Plan& plan, const Shape& m, const SkuEntry& sku, int vms,
                   const Catalog& catalog, bool memory_only = false) {
  if (plan.job.origin.count("zero"))
    return evaluate_at(plan, m, sku, vms, plan.job.zero, catalog, memory_only);
  std::optional<Candidate> unfit;
  int chosen = -1;
  for (int zero = 0; zero <= 3; ++zero) {
    if (zero == 0 && plan.job.offload != Offload::kNone) continue;
    if (zero < 3 && plan.job.offload == Offload::kAll) continue;
    Candidate c = evaluate_at(plan, m, sku, vms, zero, catalog, true);
    chosen = zero;  // the last tried: ZeRO-3, the smallest footprint, when none fits
    if (c.fits()) break;
    if (!unfit) unfit = std::move(c);
  }
  Candidate c = evaluate_at(plan, m, sku, vms, chosen, catalog, memory_only);
  if (c.fits() && unfit && unfit->zero != chosen)
    c.notes.push_back(stage_name(chosen) + " chosen: " + stage_name(unfit->zero) + " needs " +
                      format_gb(unfit->memory.total.value) + " per GPU (--zero sets the stage)");
  return c;
}

// The VM count for one size: what the job names, or the fewest that fit, or the fastest run
// within the budget.
Candidate size_candidate(const Plan& plan, const Shape& m, const SkuEntry& sku,
                         const Catalog& catalog) {
  const JobSpec& job = plan.job;
  const int g = sku.gpu_count;
  if (job.gpus) {
    const int vms = (*job.gpus + g - 1) / g;
    Candidate c = evaluate(plan, m, sku, vms, catalog);
    if (vms * g != *job.gpus)
      c.notes.push_back(std::to_string(*job.gpus) + " GPUs take " + std::to_string(vms) +
                        " VMs of " + std::to_string(g) + "; the plan uses all " +
                        std::to_string(vms * g));
    return c;
  }
  if (job.vms) return evaluate(plan, m, sku, *job.vms, catalog);
  if (job.tp > g) return evaluate(plan, m, sku, (job.tp * job.pp + g - 1) / g, catalog);
  std::optional<Candidate> best;
  std::optional<Candidate> fallback;
  int last = 1;
  for (int vms = 1; vms <= kMaxVms; vms = vms < 16 ? vms + 1 : vms + vms / 8) {
    last = vms;
    if (!job.budget_usd) {
      const Candidate probe = evaluate(plan, m, sku, vms, catalog, true);
      if (probe.fits()) return evaluate(plan, m, sku, vms, catalog);
      // Without sharding, more VMs do not shrink what each GPU holds.
      if (probe.zero == 0 && job.tp * job.pp <= g && probe.runnable) break;
      continue;
    }
    Candidate c = evaluate(plan, m, sku, vms, catalog);
    if (!c.fits()) {
      fallback = std::move(c);
      continue;
    }
    if (!c.cost) return c;  // no price: the budget cannot choose; the fewest VMs that fit
    if (c.cost->per_run.value <= *job.budget_usd) {
      if (!best || c.run_seconds.value < best->run_seconds.value) best = std::move(c);
    } else if (best) {
      break;  // costs rise with VMs once communication dominates; past the budget, stop
    } else {
      fallback = std::move(c);
    }
  }
  if (best) return *best;
  if (!fallback)
    return evaluate(plan, m, sku, job.zero == 0 && !job.budget_usd ? 1 : last, catalog);
  Candidate c = std::move(*fallback);
  if (job.budget_usd && c.fits() && c.cost)
    c.problems.push_back("over the budget of " + format_usd(*job.budget_usd) +
                         " at every VM count that fits");
  return c;
}

void rank(Plan& plan) {
  auto& cs = plan.candidates;
  bool all_priced = true;
  for (const Candidate& c : cs) all_priced = all_priced && (!c.fits() || c.cost);
  auto key = [](const Candidate& c) {
    return std::make_tuple(c.fits() ? 0 : 1, c.cost ? 0 : 1,
                           c.cost ? c.cost->per_run.value : c.run_seconds.value,
                           c.run_seconds.value, c.sku->name);
  };
  std::stable_sort(cs.begin(), cs.end(),
                   [&](const Candidate& a, const Candidate& b) { return key(a) < key(b); });
  plan.ranking = all_priced
                     ? "by cost per run (every size that fits has a price)"
                     : "by cost per run where a price is known, then by time to train; sizes "
                       "without a price in the catalog come after (pass --price SIZE=USD)";
  plan.recommended = !cs.empty() && cs.front().fits();
  if (!plan.recommended) return;
  const Candidate& best = cs.front();
  for (std::size_t i = 1; i < cs.size(); ++i) {
    Candidate& c = cs[i];
    if (!c.runnable)
      c.why_not = c.problems.front();
    else if (!c.memory.fits)
      c.why_not = "does not fit: " + c.problems.back();
    else if (c.cost && best.cost)
      c.why_not = "costs " + format_usd(c.cost->per_run.value) + " per run against " +
                  format_usd(best.cost->per_run.value) + " (" +
                  format_number(c.run_seconds.value / std::max(best.run_seconds.value, 1e-9), 3) +
                  "× the time)";
    else if (!c.cost)
      c.why_not = "no price in the catalog; " +
                  format_number(c.run_seconds.value / std::max(best.run_seconds.value, 1e-9), 3) +
                  "× the time at " + format_number(c.utilization.value * 100, 3) + "% utilization";
  }
}

std::string percent(double v) { return format_number(v * 100, 3) + "%"; }

// When nothing fits: the least model parallelism (then full recomputation) that makes the job fit
// on one of the best-ranked sizes, found by planning again with that layout.
std::optional<std::string> suggest_layout(const Plan& plan, const Shape& m,
                                          const Catalog& catalog) {
  const JobSpec& j = plan.job;
  std::vector<std::tuple<int, int, int, Recompute>> layouts;
  for (int tp : {1, 2, 4, 8}) {
    for (int pp : {1, 2, 4, 8, 16}) {
      for (Recompute r : {j.recompute, Recompute::kFull}) {
        if (r == Recompute::kFull && j.recompute == Recompute::kFull && layouts.size() &&
            std::get<3>(layouts.back()) == r && std::get<1>(layouts.back()) == tp &&
            std::get<2>(layouts.back()) == pp)
          continue;
        if (tp == j.tp && pp == j.pp && r == j.recompute) continue;
        if ((m.heads > 0 && m.heads % tp != 0) || (m.layers > 0 && m.layers < pp)) continue;
        if (j.gpus && *j.gpus % (tp * pp) != 0) continue;
        // Model parallelism inside a VM costs less than recomputing every layer (a third more
        // compute), so full recomputation ranks after tp × pp up to 8.
        layouts.emplace_back(tp * pp + (r == Recompute::kFull && j.recompute != r ? 8 : 0), tp, pp,
                             r);
      }
    }
  }
  std::stable_sort(layouts.begin(), layouts.end(),
                   [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  constexpr std::size_t kSizesTried = 3;
  for (const auto& [cost, tp, pp, r] : layouts) {
    Plan trial;
    trial.job = j;
    trial.job.tp = tp;
    trial.job.pp = pp;
    trial.job.recompute = r;
    if (!j.origin.count("sequence-parallel")) trial.job.sequence_parallel = tp > 1;
    trial.sample_bytes = plan.sample_bytes;
    trial.total_tokens = plan.total_tokens;
    trial.dataset_bytes = plan.dataset_bytes;
    for (std::size_t i = 0; i < plan.candidates.size() && i < kSizesTried; ++i) {
      Candidate c = size_candidate(trial, m, *plan.candidates[i].sku, catalog);
      if (!c.fits()) continue;
      std::string flags;
      if (tp != j.tp) flags += " --tp " + std::to_string(tp);
      if (pp != j.pp) flags += " --pp " + std::to_string(pp);
      if (r != j.recompute) flags += " --recompute " + std::string(to_string(r));
      return "it fits with" + flags + ": " + std::to_string(c.vms) + " × " + c.sku->name + ", " +
             stage_name(c.zero) + ", " + format_gb(c.memory.total.value) + " per GPU";
    }
  }
  return std::nullopt;
}

void explain_recommendation(Plan& plan, const Shape& m, const Catalog& catalog) {
  if (!plan.recommended) {
    if (plan.candidates.empty()) return;
    const JobSpec& j = plan.job;
    const Candidate& closest = plan.candidates.front();
    auto& h = plan.hints;
    h.push_back("at best (" + closest.sku->name + ", " + stage_name(closest.zero) + ", tp " +
                std::to_string(j.tp) + ", pp " + std::to_string(j.pp) +
                "): " + format_gb(closest.memory.states.value) + " of model states and " +
                format_gb(closest.memory.activations ? closest.memory.activations->value : 0) +
                " of activations per GPU (micro-batch " + std::to_string(j.micro_batch) + ", seq " +
                std::to_string(m.seq) + ")");
    if (auto s = suggest_layout(plan, m, catalog)) {
      h.push_back(*s);
      return;
    }
    if (closest.zero < 3)
      h.push_back(
          "--zero 3 divides weights, gradients and optimizer states by the data-parallel "
          "degree");
    if (j.recompute != Recompute::kFull)
      h.push_back("--recompute full keeps only each layer's input (2·s·b·h bytes)");
    h.push_back(
        "--tp (inside a VM) and --pp divide both; a smaller --micro-batch or --seq "
        "shrinks the activations");
    return;
  }
  const Candidate& b = plan.candidates.front();
  auto& r = plan.reasons;
  r.push_back("fits: " + format_gb(b.memory.total.value) + " of " +
              format_gb(b.memory.usable.value) + " usable per GPU (" +
              format_gb(b.memory.states.value) + " model states, " +
              format_gb(b.memory.activations ? b.memory.activations->value : 0) + " activations)");
  std::string wait;
  if (b.dominant_wait == "none")
    wait = "the GPUs are compute-bound";
  else if (b.dominant_wait == "communication")
    wait = "they wait mostly on communication (" +
           percent(b.comm.exposed_seconds.value / b.step_seconds.value) + " of each step, " +
           b.comm_path + ")";
  else
    wait = "they wait mostly on data (" +
           percent(b.data.exposed_seconds.value / b.step_seconds.value) + " of each step)";
  r.push_back("predicted GPU utilization " + percent(b.utilization.value) + ": " + wait);
  r.push_back("step " + format_duration(b.step_seconds.value) + ", run " +
              format_duration(b.run_seconds.value) + " for " +
              format_number(plan.total_tokens / 1e9, 4) + "B tokens at MFU " +
              format_number(plan.job.mfu, 2));
  if (b.cost)
    r.push_back(format_usd(b.cost->per_run.value) + " per run at " +
                format_usd(b.cost->per_hour.value) + "/h (" + b.price->origin + "); " +
                format_usd(b.cost->idle.value) + " of it pays for waiting GPUs");
  r.push_back(b.placement.advice);
  r.push_back("data: " + b.data.options[b.data.chosen].name + " — " + b.data.reason);
  if (b.vms > 1 && !b.sku->has_infiniband())
    r.push_back("no InfiniBand: the gradient sync crosses the front-end NIC");

  auto& k = plan.checklist;
  const std::string size = b.sku->name;
  k.push_back("lint the deployment before creating it: trainready lint TEMPLATE (size " + size +
              (b.vms > 1 && b.sku->has_infiniband()
                   ? ", one scale set with singlePlacementGroup=true, an HPC image with the "
                     "InfiniBand driver)"
                   : ")"));
  k.push_back("on every VM: trainready doctor (GPUs " + std::to_string(b.sku->gpu_count) +
              (b.sku->has_infiniband()
                   ? ", " + std::to_string(b.sku->ib_ports) + " InfiniBand ports Active at " +
                         format_number(b.sku->ib_rate_gbits_per_s, 3) +
                         " Gb/s, one partition key, GPUDirect RDMA)"
                   : ")"));
  if (b.vms > 1 || b.sku->gpu_count > 1) {
    const double expected = b.allreduce_busbw.value / 1e9;
    k.push_back("mpirun -np " + std::to_string(b.gpus) +
                " trainready bench allreduce -b 8 -e 16G "
                "-f 2 --sku " +
                size + " --nodes " + std::to_string(b.vms) +
                " (or all_reduce_perf, read by trainready nccl-tests): busbw at 16G near " +
                format_number(expected, 3) + " GB/s");
  }
  if (b.vms > 1 && b.sku->has_infiniband())
    k.push_back(
        "first step with NCCL_DEBUG=INFO, then trainready nccl LOG: NET/IB, not NET/Socket");
  k.push_back(
      "read the data path at the planned rate: fio --rw=read --bs=1M --direct=1 on it "
      "should reach " +
      format_rate_si(b.data.demand_per_vm.value) + " per VM");
}

}  // namespace

Plan make_plan(const JobSpec& job, const Catalog& catalog) {
  Plan plan;
  plan.job = job;
  Shape m;
  m.params = job.params.value_or(0);
  m.layers = job.layers.value_or(0);
  m.hidden = job.hidden.value_or(0);
  m.heads = job.heads.value_or(0);
  m.vocab = job.vocab.value_or(0);
  m.seq = job.seq.value_or(2048);
  if (!job.seq) plan.job.origin["seq"] = "default (2048)";
  plan.bytes_per_token = m.vocab > 0 && m.vocab <= 65536 ? 2 : 4;
  if (job.sample_bytes) {
    plan.sample_bytes = *job.sample_bytes;
    plan.sample_bytes_origin =
        job.origin.count("sample-bytes") ? job.origin.at("sample-bytes") : "--sample-bytes";
  } else {
    plan.sample_bytes = m.seq * plan.bytes_per_token;
    plan.sample_bytes_origin =
        "seq × " + format_number(plan.bytes_per_token, 1) + " bytes per token id (" +
        (plan.bytes_per_token == 2 ? "vocabulary ≤ 65,536: uint16"
                                   : "vocabulary > 65,536 or unknown: uint32") +
        ")";
  }
  if (job.tokens) {
    plan.total_tokens = *job.tokens;
    plan.run_length_origin = job.origin.count("tokens") ? job.origin.at("tokens") : "--tokens";
  } else if (job.dataset_bytes) {
    const double epochs = job.epochs.value_or(1);
    plan.total_tokens = epochs * *job.dataset_bytes / plan.sample_bytes * m.seq;
    plan.run_length_origin =
        format_number(epochs, 3) + " epoch(s) of dataset-bytes / sample-bytes samples";
  } else {
    plan.total_tokens = kChinchillaTokensPerParam * m.params;
    plan.run_length_origin =
        "assumed: 20 tokens per parameter (Chinchilla, via Transformer Math "
        "101); --tokens sets it";
  }
  if (job.dataset_bytes) {
    plan.dataset_bytes = *job.dataset_bytes;
    plan.dataset_origin =
        job.origin.count("dataset-bytes") ? job.origin.at("dataset-bytes") : "--dataset-bytes";
  } else {
    plan.dataset_bytes = plan.total_tokens / m.seq * plan.sample_bytes;
    plan.dataset_origin = "one pass over the run's samples (total_tokens / seq × sample_bytes)";
  }
  if (job.gpus)
    plan.scale_origin = "gpus = " + std::to_string(*job.gpus);
  else if (job.vms)
    plan.scale_origin = "vms = " + std::to_string(*job.vms);
  else if (job.budget_usd)
    plan.scale_origin = "the fastest run within the budget";
  else
    plan.scale_origin = "the fewest VMs that fit (--gpus or --vms sets it)";

  std::vector<const SkuEntry*> skus;
  for (const std::string& name : job.skus) {
    const SkuEntry* s = catalog.find(name);
    if (!s) {
      auto it = job.origin.find("sku");
      throw InputError(it == job.origin.end() ? "--sku" : it->second, 0,
                       "VM size '" + name + "' is not in the catalog (see `trainready catalog`)");
    }
    if (std::find(skus.begin(), skus.end(), s) == skus.end()) skus.push_back(s);
  }
  for (const auto& [name, usd] : job.prices) {
    if (!catalog.find(name)) {
      auto it = job.origin.find("price");
      throw InputError(it == job.origin.end() ? "--price" : it->second, 0,
                       "price for '" + name + "': not a VM size in the catalog");
    }
  }
  if (skus.empty()) {
    for (const SkuEntry& s : catalog.skus()) skus.push_back(&s);
  }
  for (const SkuEntry* s : skus) plan.candidates.push_back(size_candidate(plan, m, *s, catalog));
  rank(plan);
  explain_recommendation(plan, m, catalog);
  return plan;
}

}  // namespace trainready
