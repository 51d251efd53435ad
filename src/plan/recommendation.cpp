// Ranking the candidates, the recommendation's reasons and checklist, and, when nothing fits,
// the layout that would.
#include "plan/recommendation.h"

#include <algorithm>
#include <cmath>

#include "core/input_error.h"
#include "core/text.h"
#include "core/units.h"
#include "plan/candidate_evaluation.h"

namespace trainready {
namespace {

std::string percent(double v) { return format_number(v * 100, 3) + "%"; }

// When nothing fits: the least model parallelism (then full recomputation) that makes the job fit
// on one of the best-ranked sizes, found by planning again with that layout.
std::optional<std::string> suggest_layout(const Plan& plan, const ModelShape& m,
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

}  // namespace

void rank_candidates(Plan& plan) {
  auto& cs = plan.candidates;
  bool all_priced = true;
  for (const Candidate& c : cs) all_priced = all_priced && (!c.fits() || c.cost);
  // Cost ranks only when every size that fits has a price: putting the one priced size first
  // would recommend it for having a number, not for being cheaper.
  auto key = [all_priced](const Candidate& c) {
    return std::make_tuple(c.fits() ? 0 : 1,
                           all_priced && c.cost ? c.cost->per_run.value : c.run_seconds.value,
                           c.run_seconds.value, c.sku->name);
  };
  std::stable_sort(cs.begin(), cs.end(),
                   [&](const Candidate& a, const Candidate& b) { return key(a) < key(b); });
  plan.ranking = all_priced
                     ? "by cost per run (every size that fits has a price)"
                     : "by time to train: not every size that fits has a known price (the catalog "
                       "holds one third-party quote; pass --price SIZE=USD for each to rank by "
                       "cost); costs are shown where a price is known";
  plan.recommended = !cs.empty() && cs.front().fits();
  if (!plan.recommended) return;
  const Candidate& best = cs.front();
  for (std::size_t i = 1; i < cs.size(); ++i) {
    Candidate& c = cs[i];
    if (!c.runnable)
      c.why_not = c.problems.front();
    else if (!c.memory.fits)
      c.why_not = "does not fit: " + c.problems.back();
    else if (all_priced && c.cost && best.cost)
      c.why_not = "costs " + format_usd(c.cost->per_run.value) + " per run against " +
                  format_usd(best.cost->per_run.value) + " (" +
                  format_number(c.run_seconds.value / std::max(best.run_seconds.value, 1e-9), 3) +
                  "× the time)";
    else
      c.why_not = std::string(c.cost ? "" : "no price in the catalog; ") +
                  format_number(c.run_seconds.value / std::max(best.run_seconds.value, 1e-9), 3) +
                  "× the time at " + format_number(c.utilization.value * 100, 3) + "% utilization";
  }
}

void explain_recommendation(Plan& plan, const ModelShape& m, const Catalog& catalog) {
  if (!plan.recommended) {
    if (plan.candidates.empty()) return;
    const JobSpec& j = plan.job;
    const Candidate& closest = plan.candidates.front();
    auto& h = plan.hints;
    // Memory is not always what stops the job: a global batch smaller than the data-parallel
    // ranks cannot give each rank a micro-batch, whatever the GPU memory.
    const int per_step = j.micro_batch * closest.dp;
    const auto gb_origin = j.origin.find("global-batch");
    const bool batch_given =
        gb_origin != j.origin.end() && gb_origin->second.rfind("--model", 0) != 0;
    if (batch_given && j.global_batch && *j.global_batch < per_step) {
      const int most_dp = *j.global_batch / j.micro_batch;
      h.push_back("not memory: the global batch of " + std::to_string(*j.global_batch) +
                  " sequences (" + gb_origin->second + ") cannot give each of the " +
                  std::to_string(closest.dp) + " data-parallel ranks a micro-batch of " +
                  std::to_string(j.micro_batch));
      std::string fix = "raise --global-batch to at least " + std::to_string(per_step);
      if (most_dp >= 1)
        fix += ", or run on at most " + std::to_string(most_dp * j.tp * j.pp) + " GPUs (--gpus; " +
               std::to_string(most_dp) + " data-parallel ranks × tp " + std::to_string(j.tp) +
               " × pp " + std::to_string(j.pp) + ")";
      else
        fix += ", or lower --micro-batch to at most " + std::to_string(*j.global_batch);
      h.push_back(fix);
      return;
    }
    if (!closest.runnable && closest.memory.fits && !closest.problems.empty()) {
      h.push_back("not memory: " + closest.problems.front());
      return;
    }
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
  if (plan.job.gpus && b.gpus != *plan.job.gpus) {
    // The asked count does not fill the recommended size's VMs: say so, and name the sizes
    // that run it exactly (they stay among the candidates).
    const int asked = *plan.job.gpus;
    std::string exact;
    for (const Candidate& c : plan.candidates) {
      if (c.fits() && c.gpus == asked)
        exact += (exact.empty() ? "" : " / ") + c.sku->name +
                 (c.vms > 1 ? " (" + std::to_string(c.vms) + " VMs)" : "");
    }
    r.push_back(std::to_string(asked) + " GPUs asked; " + b.sku->name + " has " +
                std::to_string(b.sku->gpu_count) + " per VM: planned for " +
                std::to_string(b.gpus) + " (" + std::to_string(b.vms) + " VM" +
                (b.vms == 1 ? "" : "s") + "), " +
                (exact.empty() ? "none of the sizes planned runs exactly " + std::to_string(asked)
                               : "or use " + exact + " with " + std::to_string(asked)));
  }
  r.push_back("fits: " + format_gb(b.memory.total.value) + " of " +
              format_gb(b.memory.usable.value) + " usable per GPU (" +
              format_gb(b.memory.states.value) + " model states, " +
              format_gb(b.memory.activations ? b.memory.activations->value : 0) + " activations)");
  std::string wait;
  if (b.dominant_wait == "none")
    wait = "the GPUs are compute-bound";
  else if (b.dominant_wait == "communication")
    wait = "they wait mostly on communication (" +
           percent((b.comm.exposed_seconds.value + b.model_parallel.seconds.value) /
                   b.step_seconds.value) +
           " of each step, " +
           (b.model_parallel.seconds.value > b.comm.exposed_seconds.value
                ? std::string("mostly tensor- and pipeline-parallel traffic")
                : b.comm_path) +
           ")";
  else
    wait = "they wait mostly on data (" +
           percent(b.data.exposed_seconds.value / b.step_seconds.value) + " of each step)";
  r.push_back("predicted GPU utilization " + percent(b.utilization.value) + ": " + wait);
  r.push_back("step " + format_duration(b.step_seconds.value) + ", run " +
              format_duration(b.run_seconds.value) + " for " +
              format_number(plan.total_tokens / 1e9, 4) + "B tokens at MFU " +
              format_number(b.mfu, 3) + " (" + b.mfu_origin + ")");
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
                format_number(expected, 3) + " GB/s" +
                (b.sku->nccl_allreduce_floor_gbytes_per_s
                     ? std::string()
                     : " (the planner's assumption, not a health-check floor: none is published "
                       "for this size)"));
  }
  if (b.vms > 1 && b.sku->has_infiniband())
    k.push_back(
        "first step with NCCL_DEBUG=INFO, then trainready nccl LOG: NET/IB, not NET/Socket");
  k.push_back(
      "read the data path at the planned rate: fio --rw=read --bs=1M --direct=1 on it "
      "should reach " +
      format_rate_si(b.data.demand_per_vm.value) + " per VM");
}

}  // namespace trainready
