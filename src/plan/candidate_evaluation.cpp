// Candidate evaluation: one VM size at one VM count through every model of src/plan, and the
// search for the ZeRO stage and VM count a size needs.
#include "plan/candidate_evaluation.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "catalog/published_runs.h"
#include "core/input_error.h"
#include "core/text.h"
#include "core/units.h"
#include "plan/step_model.h"

namespace trainready {
namespace {

constexpr int kMaxVms = 1000;  // largest scale set of any kind; searches stop here

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

// Evaluates one size at one VM count. Everything but the ranking happens here.
// memory_only stops after the memory model: enough to search for the layout or VM count that fits.
Candidate evaluate_at(const Plan& plan, const ModelShape& m, const SkuEntry& sku, int vms, int zero,
                      const Catalog& catalog, bool memory_only = false) {
  const JobSpec& job = plan.job;
  Candidate c;
  c.sku = &sku;
  c.zero = zero;
  c.vms = vms;
  c.gpus = vms * sku.gpu_count;
  c.layout = {
      job.tp, job.pp, job.recompute, job.micro_batch, job.sequence_parallel.value_or(job.tp > 1),
      job.vp, 1};
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
  // Expert parallelism (MoE): Megatron-LM carves it out of data parallelism; the planner takes
  // the most experts per group that divides both the experts and dp (Megatron-LM's MoE guide
  // and NeMo's recipes shard all experts: EP 8 for Mixtral 8x7B).
  if (m.experts > 0) c.layout.ep = std::gcd(m.experts, c.dp);
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
  // Routed experts are sharded over expert parallelism: each rank of a tp × pp shard holds 1/ep
  // of them (2·h·f·k per expert and layer, Megatron-LM's count).
  const double expert_params =
      m.experts > 0 ? m.layers * 2.0 * m.hidden * m.ffn() * (m.gated ? 1.5 : 1.0) * m.experts : 0;
  mi.states.params = m.params - expert_params * (1 - 1.0 / c.layout.ep);
  mi.states.dp = c.dp;
  mi.states.tp = job.tp;
  mi.states.pp = job.pp;
  mi.states.zero = zero;
  mi.states.offload = job.offload;
  mi.states.bytes = bytes;
  mi.states.largest_layer_params =
      job.largest_layer ? *job.largest_layer
                        : largest_layer_params(m.hidden, m.vocab, m.params, m.layers);
  if (zero == 3 && !job.largest_layer && !memory_only) {
    if (m.hidden <= 0)
      c.notes.push_back(
          "ZeRO-3 per GPU is an upper bound: without --largest-layer or a shape (--hidden, "
          "--vocab) the largest layer is taken as " +
          std::string(m.layers > 0 ? "P / layers" : "the whole model (P)") +
          ", where DeepSpeed's estimate_zero3_model_states_mem_needs means the largest single "
          "module's parameters (docs: Memory Requirements; t5-3b: 32M of 2851M)");
    else if (m.vocab <= 0)
      c.notes.push_back(
          "ZeRO-3: largest layer taken as one hidden × 4·hidden projection (4h²); without "
          "--vocab the embedding (vocab × hidden), often larger, is not counted: pass --vocab "
          "or --largest-layer");
  }
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
    a.vp = job.vp;
    a.sequence_parallel = job.sequence_parallel.value_or(false);
    a.recompute = job.recompute;
    mi.activations = a;
    // Megatron-LM's estimator covers DDP and its distributed optimizer (ZeRO-1's sharding); its
    // FSDP (ZeRO-2/-3) is not in it.
    MegatronInputs mg;
    mg.model = m;
    mg.tp = job.tp;
    mg.pp = job.pp;
    mg.vp = job.vp;
    mg.dp = c.dp;
    mg.ep = c.layout.ep;
    mg.micro_batch = job.micro_batch;
    mg.micro_batches = c.accumulation;
    mg.sequence_parallel = a.sequence_parallel;
    mg.recompute = job.recompute;
    mg.distributed_optimizer = zero == 1;
    // A memory-only probe of the search needs Megatron's count only when it decides the fit.
    if (zero <= 1 && (!memory_only || job.convention == MemoryConvention::kMegatron))
      mi.megatron = mg;
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
  ci.params = m.active();  // MoE: each token passes through top-k experts only
  ci.layers = m.layers;
  ci.hidden = m.hidden;
  ci.seq = m.seq;
  ci.tokens_per_step = c.tokens_per_step;
  ci.gpus = c.gpus;
  ci.peak_tflops = c.peak_tflops;
  c.mfu = job.mfu;
  if (auto o = job.origin.find("mfu"); o != job.origin.end()) {
    c.mfu_origin = o->second;
  } else {
    c.mfu_origin = "the planner's default: no published run of this model on " + sku.gpu_model +
                   " at " + to_string(job.precision) + "; --mfu sets it";
    const PublishedRun* row =
        job.model.empty() ? nullptr : find_published_run(job.model, sku.gpu_model, job.precision);
    if (row != nullptr && c.peak_tflops > 0) {
      c.mfu = implied_mfu(*row, m.params, m.layers, m.hidden, c.peak_tflops);
      c.mfu_origin = "implied by " + row->source + ": " + row->model + " on " +
                     std::to_string(row->gpus) + " × " + row->gpu_model + ", GBS " +
                     std::to_string(row->global_batch) + ", seq " + std::to_string(row->seq) +
                     ", TP " + std::to_string(row->tp) + " PP " + std::to_string(row->pp) + ": " +
                     std::to_string(std::llround(row->tokens_per_s_per_gpu)) + " tokens/s/GPU";
    } else if (const PublishedRun* other =
                   job.model.empty() ? nullptr
                                     : find_published_run_any_precision(job.model, sku.gpu_model)) {
      c.notes.push_back("published: " + other->model + " on " + other->gpu_model + " at " +
                        to_string(other->precision) + " (" + other->source + ", " +
                        std::to_string(std::llround(other->tokens_per_s_per_gpu)) +
                        " tokens/s/GPU); this plan is " + to_string(job.precision) +
                        ", so it keeps the default MFU (--precision " +
                        to_string(other->precision) + " plans from the published run)");
    }
  }
  ci.mfu = c.mfu;
  ci.recompute = job.recompute;
  ci.pp = job.pp;
  ci.vp = job.vp;
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
  else if (vms <= sku.nvlink_domain_vms)
    c.comm_path = "NVLink between the VMs of one NVLink domain (" +
                  std::to_string(sku.nvlink_domain_gpus) + " GPUs, " +
                  std::to_string(sku.nvlink_domain_vms) + " VMs per rack)";
  else if (sku.nvlink_domain_vms > 1)
    c.comm_path = "NVLink inside each rack of " + std::to_string(sku.nvlink_domain_vms) +
                  " VMs, InfiniBand (" + sku.ib_generation + ") between racks";
  else if (sku.has_infiniband())
    c.comm_path = c.placement.domains > 1 ? "InfiniBand inside each domain, Ethernet between them"
                                          : "InfiniBand between VMs (" + sku.ib_generation + ")";
  else
    c.comm_path = "front-end Ethernet between VMs (TCP, no InfiniBand)";
  CommInputs co;
  co.params = m.params;
  co.weight_bytes = bytes.weights;
  co.gradient_bytes = job.grad_reduce_bytes.value_or(bytes.gradients);
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
  ModelParallelInputs mp;
  mp.tp = job.tp;
  mp.pp = job.pp;
  mp.layers = m.layers;
  mp.hidden = m.hidden;
  mp.seq = m.seq;
  mp.micro_batch = job.micro_batch;
  mp.micro_batches = c.accumulation;
  mp.vp = job.vp;
  mp.activation_bytes = job.precision == Precision::kFp32 ? 4 : 2;
  mp.full_recompute = job.recompute == Recompute::kFull;
  mp.tp_busbw = sku.intra_vm_allreduce_gbytes_per_s().value_or(0) * 1e9;
  mp.pp_bytes_per_s =
      sku.has_infiniband()
          ? sku.ib_ports * sku.ib_rate_gbits_per_s * 1e9 / 8 * job.ib_efficiency / sku.gpu_count
          : ethernet_bytes_per_s(sku, job.ethernet_efficiency).value / sku.gpu_count;
  c.model_parallel = estimate_model_parallel(mp);

  // Data.
  DataInputs di;
  di.sku = &sku;
  di.storage = &catalog.storage();
  di.vms = vms;
  di.gpus = c.gpus;
  di.bytes_per_step = c.global_batch * plan.sample_bytes;
  di.step_seconds =
      c.compute.seconds.value + c.model_parallel.seconds.value + c.comm.exposed_seconds.value;
  di.dataset_bytes = plan.dataset_bytes;
  c.data = estimate_data(di);

  // Step, utilization and what the GPUs wait on; run length.
  StepInputs si;
  si.compute_seconds = c.compute.seconds.value;
  si.comm_exposed_seconds = c.comm.exposed_seconds.value;
  si.model_parallel_seconds = c.model_parallel.seconds.value;
  si.data_exposed_seconds = c.data.exposed_seconds.value;
  si.total_tokens = plan.total_tokens;
  si.tokens_per_step = c.tokens_per_step;
  StepEstimate se = estimate_step(si);
  c.step_seconds = std::move(se.step_seconds);
  c.utilization = std::move(se.utilization);
  c.dominant_wait = std::move(se.dominant_wait);
  c.steps = std::move(se.steps);
  c.run_seconds = std::move(se.run_seconds);

  // Cost.
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

}  // namespace

std::string stage_name(int zero) { return zero == 0 ? "DDP" : "ZeRO-" + std::to_string(zero); }

// With the ZeRO stage named by the job, or else the least sharding that fits: DDP, then ZeRO-1
// and -2 (the same traffic as DDP), then ZeRO-3 (half as much again).
Candidate evaluate(const Plan& plan, const ModelShape& m, const SkuEntry& sku, int vms,
                   const Catalog& catalog, bool memory_only) {
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
Candidate size_candidate(const Plan& plan, const ModelShape& m, const SkuEntry& sku,
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
      // Without sharding, more VMs do not shrink what each GPU holds; nor do they when the
      // activations, buffers and context alone exceed the usable memory.
      if (probe.zero == 0 && job.tp * job.pp <= g && probe.runnable) break;
      if (probe.runnable && probe.memory.largest_params.value <= 0) break;
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

}  // namespace trainready
