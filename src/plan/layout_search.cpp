// The layout search. Constraints (Megatron-LM, Narayanan et al. 2021, arXiv:2104.04473 §3):
// tensor parallelism stays inside a VM (its all-reduces in every layer need NVLink) and divides
// the attention heads and, with grouped-query attention, the KV heads; pipeline parallelism
// divides the layers and crosses VMs point-to-point; data parallelism is gpus / (tp·pp);
// sequence parallelism is on with tensor parallelism (Korthikanti et al. 2022); the micro-batch
// divides each data-parallel rank's share of the global batch.
#include "plan/layout_search.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <tuple>

#include "core/text.h"
#include "core/units.h"
#include "plan/recommendation.h"

namespace trainready {
namespace {

constexpr std::size_t kLayoutsShown = 5;
constexpr int kMaxPipeline = 64;
constexpr int kMaxVirtual = 8;  // virtual stages per rank searched (NeMo's recipes use 2-20)
constexpr std::size_t kBudgetLayouts = 4;
constexpr int kMaxVms = 1000;  // as size_candidate: the largest scale set of any kind

bool pinned(const JobSpec& j, const char* key) { return j.origin.count(key) > 0; }

std::vector<int> tp_options(const JobSpec& j, const ModelShape& m, const SkuEntry& sku) {
  if (pinned(j, "tp")) return {j.tp};
  std::vector<int> out;
  const int kv = m.kv();
  for (int t = 1; t <= sku.gpu_count; t *= 2)
    if (sku.gpu_count % t == 0 && m.heads % t == 0 && kv % t == 0) out.push_back(t);
  return out;
}

std::vector<int> pp_options(const JobSpec& j, const ModelShape& m) {
  if (pinned(j, "pp")) return {j.pp};
  std::vector<int> out;
  for (int p = 1; p <= std::min(m.layers, kMaxPipeline); ++p)
    if (m.layers % p == 0) out.push_back(p);
  return out;
}

// Virtual stages for the interleaved schedule (Narayanan et al. 2021 §2.2.2; Megatron-LM
// validate_args): with pp ≥ 2, v divides the layers per stage (layers % (p·v) == 0).
std::vector<int> vp_options(const JobSpec& j, const ModelShape& m, int pp) {
  if (pinned(j, "vp")) {
    if (j.vp == 1 || (pp >= 2 && m.layers % (pp * j.vp) == 0)) return {j.vp};
    return {};
  }
  std::vector<int> out = {1};
  if (pp < 2) return out;
  for (int v = 2; v <= kMaxVirtual; ++v)
    if ((m.layers / pp) % v == 0) out.push_back(v);
  return out;
}

std::vector<Recompute> recompute_options(const JobSpec& j) {
  if (pinned(j, "recompute")) return {j.recompute};
  return {Recompute::kNone, Recompute::kSelective, Recompute::kFull};
}

std::vector<int> micro_batch_options(const JobSpec& j) {
  if (pinned(j, "micro-batch")) return {j.micro_batch};
  return {1, 2, 4, 8};
}

std::string layout_text(const Candidate& c) {
  const Layout& l = c.layout;
  return std::to_string(c.vms) + " × " + c.sku->name + ", tp " + std::to_string(l.tp) + ", pp " +
         std::to_string(l.pp) + (l.vp > 1 ? ", vp " + std::to_string(l.vp) : "") + ", dp " +
         std::to_string(c.dp) + (l.ep > 1 ? ", ep " + std::to_string(l.ep) : "") + ", " +
         stage_name(c.zero) + ", recompute " + to_string(l.recompute) + ", micro-batch " +
         std::to_string(l.micro_batch);
}

std::string pct(double v) { return format_number(v * 100, 2) + " %"; }

// Why a runner-up lost to the winner: what it needs that does not fit, or how much longer (or
// dearer) it runs and which of its step's terms the winner does not pay.
std::string why_lost(const Candidate& c, const Candidate& w, bool by_cost) {
  if (!c.runnable) return c.problems.empty() ? "cannot run" : c.problems.front();
  if (!c.memory.fits)
    return "does not fit: " + format_gb(c.memory.total.value) + " per GPU of " +
           format_gb(c.memory.usable.value) + " usable";
  std::string s;
  const double ratio = by_cost && c.cost && w.cost
                           ? c.cost->per_run.value / std::max(w.cost->per_run.value, 1e-9)
                           : c.run_seconds.value / std::max(w.run_seconds.value, 1e-9);
  if (std::abs(ratio - 1) < 5e-4)
    return "ties on " + std::string(by_cost ? "cost" : "time to train") +
           "; the simpler layout wins (less model parallelism, recomputation, smaller "
           "micro-batch, in that order)";
  if (by_cost && c.cost && w.cost)
    s = "+" + pct(c.cost->per_run.value / std::max(w.cost->per_run.value, 1e-9) - 1) +
        " cost per run";
  else
    s = "+" + pct(c.run_seconds.value / std::max(w.run_seconds.value, 1e-9) - 1) + " time to train";
  s += " (step " + format_duration(c.step_seconds.value) + " against " +
       format_duration(w.step_seconds.value) + ")";
  std::vector<std::string> parts;
  const double step = std::max(c.step_seconds.value, 1e-12);
  if (c.layout.pp > 1)
    parts.push_back("pipeline bubble " +
                    pct(static_cast<double>(c.layout.pp - 1) /
                        (std::max(1, c.layout.vp) * std::max(1, c.accumulation))) +
                    " of compute");
  if (c.model_parallel.tp_seconds.value > 0)
    parts.push_back("tensor-parallel traffic " + pct(c.model_parallel.tp_seconds.value / step));
  if (c.model_parallel.pp_seconds.value > 0)
    parts.push_back("pipeline traffic " + pct(c.model_parallel.pp_seconds.value / step));
  if (c.comm.exposed_seconds.value > 0)
    parts.push_back("exposed gradient sync " + pct(c.comm.exposed_seconds.value / step));
  if (c.layout.recompute == Recompute::kFull) parts.push_back("full recomputation +33 % compute");
  if (c.gpus != w.gpus)
    parts.push_back(std::to_string(c.gpus) + " GPUs against " + std::to_string(w.gpus));
  if (c.sku != w.sku) parts.push_back("on " + c.sku->name);
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? ": " : ", ") + parts[i];
  return s;
}

// Nearest miss: the smallest memory need relative to what is usable.
bool nearer(const Candidate& a, const Candidate& b) {
  if (a.runnable != b.runnable) return a.runnable;
  return a.memory.total.value / std::max(a.memory.usable.value, 1.0) <
         b.memory.total.value / std::max(b.memory.usable.value, 1.0);
}

}  // namespace

bool layout_search_wanted(const JobSpec& job, const ModelShape& m) {
  if (m.layers <= 0 || m.hidden <= 0 || m.heads <= 0) return false;
  return !(pinned(job, "tp") && pinned(job, "pp") && pinned(job, "recompute") &&
           pinned(job, "micro-batch") && (pinned(job, "vp") || job.pp < 2));
}

int layout_count(const JobSpec& job, const ModelShape& m, const SkuEntry& sku) {
  std::size_t stages = 0;
  for (int pp : pp_options(job, m)) stages += vp_options(job, m, pp).size();
  return static_cast<int>(tp_options(job, m, sku).size() * stages * recompute_options(job).size() *
                          micro_batch_options(job).size());
}

void search_layouts(Plan& plan, const ModelShape& m, const std::vector<const SkuEntry*>& skus,
                    const Catalog& catalog) {
  const JobSpec job = plan.job;
  const bool scale_free = !job.gpus && !job.vms && !job.budget_usd;
  const bool sweep = !job.gpus && !job.vms;  // no fixed scale: sweep the VM counts
  std::vector<Candidate> all;
  for (const SkuEntry* sku : skus) {
    // The layouts of this size, in the order tp, pp, recompute, micro-batch.
    std::vector<Plan> trials;
    for (int tp : tp_options(job, m, *sku)) {
      for (int pp : pp_options(job, m)) {
        if (job.gpus && *job.gpus % (tp * pp) != 0) continue;
        if (job.vms && (*job.vms * sku->gpu_count) % (tp * pp) != 0) continue;
        for (int vp : vp_options(job, m, pp))
          for (Recompute r : recompute_options(job)) {
            for (int mb : micro_batch_options(job)) {
              if (job.global_batch && job.gpus) {
                const int dp = *job.gpus / (tp * pp);
                if (dp > 0 && *job.global_batch % dp == 0 && (*job.global_batch / dp) % mb != 0)
                  continue;  // the micro-batch does not divide each rank's share
              }
              Plan trial;
              trial.job = job;
              trial.job.tp = tp;
              trial.job.pp = pp;
              trial.job.vp = vp;
              trial.job.recompute = r;
              trial.job.micro_batch = mb;
              if (!pinned(job, "sequence-parallel")) trial.job.sequence_parallel = tp > 1;
              trial.sample_bytes = plan.sample_bytes;
              trial.total_tokens = plan.total_tokens;
              trial.dataset_bytes = plan.dataset_bytes;
              trials.push_back(std::move(trial));
            }
          }
      }
    }
    // An interleaved layout holds (1 + (p − 1)/(p·v)) times the activations of the same layout
    // without interleaving and the same states: where that one does not fit, it does not either.
    // sibling[i]: the trial without interleaving, evaluated before it (vp 1 comes first).
    std::vector<int> sibling(trials.size(), -1);
    {
      std::map<std::tuple<int, int, int, int>, int> plain;
      for (std::size_t i = 0; i < trials.size(); ++i) {
        const JobSpec& j = trials[i].job;
        const auto key = std::make_tuple(j.tp, j.pp, static_cast<int>(j.recompute), j.micro_batch);
        if (j.vp == 1)
          plain[key] = static_cast<int>(i);
        else if (auto it = plain.find(key); it != plain.end())
          sibling[i] = it->second;
      }
    }
    if (!sweep) {
      std::vector<char> unfit(trials.size(), 0);
      for (std::size_t i = 0; i < trials.size(); ++i) {
        if (sibling[i] >= 0 && unfit[static_cast<std::size_t>(sibling[i])]) {
          unfit[i] = 1;
          continue;
        }
        Candidate c = size_candidate(trials[i], m, *sku, catalog);
        ++plan.layouts_evaluated;
        const bool stop = !c.fits() && c.runnable;
        unfit[i] = stop ? 1 : 0;
        const int mb = trials[i].job.micro_batch;
        all.push_back(std::move(c));
        // A larger micro-batch holds more activations: once one does not fit, none does.
        if (stop)
          while (i + 1 < trials.size() && trials[i + 1].job.micro_batch > mb &&
                 trials[i + 1].job.tp == trials[i].job.tp &&
                 trials[i + 1].job.pp == trials[i].job.pp &&
                 trials[i + 1].job.vp == trials[i].job.vp &&
                 trials[i + 1].job.recompute == trials[i].job.recompute)
            unfit[++i] = 1;
      }
      continue;
    }
    // Without a scale: the fewest VMs at which some layout fits (the planner's "fewest VMs that
    // fit"), then every layout that fits there, ranked by time. One sweep over the VM counts for
    // all layouts, not one per layout.
    const std::size_t first = all.size();
    bool found = false;
    int last = 1;
    for (int vms = 1; vms <= kMaxVms; vms = vms < 16 ? vms + 1 : vms + vms / 8) last = vms;
    // Memory per GPU only falls with more VMs (states shard over more ranks, activations stay):
    // a layout that does not fit at the most VMs fits at none, and one whose activations,
    // buffers and context alone exceed the memory is hopeless at any count.
    std::vector<bool> hopeless(trials.size(), false);
    bool any = false;
    for (std::size_t i = 0; i < trials.size(); ++i) {
      if (sibling[i] >= 0 && hopeless[static_cast<std::size_t>(sibling[i])]) {
        hopeless[i] = true;
        continue;
      }
      const Candidate probe = evaluate(trials[i], m, *sku, last, catalog, true);
      hopeless[i] = probe.runnable && !probe.fits();
      any = any || !hopeless[i];
    }
    std::vector<char> fits_here(trials.size(), 0);
    for (int vms = 1; vms <= kMaxVms && !found && any; vms = vms < 16 ? vms + 1 : vms + vms / 8) {
      std::fill(fits_here.begin(), fits_here.end(), 0);
      for (std::size_t i = 0; i < trials.size(); ++i) {
        const Plan& t = trials[i];
        if (hopeless[i] || (vms * sku->gpu_count) % (t.job.tp * t.job.pp) != 0) continue;
        if (sibling[i] >= 0 && !fits_here[static_cast<std::size_t>(sibling[i])]) continue;
        const Candidate probe = evaluate(t, m, *sku, vms, catalog, true);
        fits_here[i] = probe.fits() ? 1 : 0;
        if (!probe.fits()) {
          hopeless[i] = probe.runnable && probe.memory.largest_params.value <= 0;
          continue;
        }
        found = true;
        all.push_back(evaluate(t, m, *sku, vms, catalog));
        ++plan.layouts_evaluated;
      }
    }
    if (!found) {
      for (const Plan& t : trials) {
        all.push_back(evaluate(t, m, *sku, last, catalog));
        ++plan.layouts_evaluated;
      }
    }
    if (!job.budget_usd || !found) continue;
    // With a budget: the VM count search of size_candidate (the fastest run within the budget)
    // evaluates every count in full, so it runs for the fastest few layouts at the fewest VMs
    // only, not for all of them.
    std::vector<Candidate> fewest(std::make_move_iterator(all.end() - (all.size() - first)),
                                  std::make_move_iterator(all.end()));
    all.resize(first);
    std::stable_sort(fewest.begin(), fewest.end(), [](const Candidate& a, const Candidate& b) {
      return a.run_seconds.value < b.run_seconds.value;
    });
    for (std::size_t i = 0; i < fewest.size() && i < kBudgetLayouts; ++i) {
      for (const Plan& t : trials) {
        if (t.job.tp != fewest[i].layout.tp || t.job.pp != fewest[i].layout.pp ||
            t.job.vp != fewest[i].layout.vp || t.job.recompute != fewest[i].layout.recompute ||
            t.job.micro_batch != fewest[i].layout.micro_batch)
          continue;
        all.push_back(size_candidate(t, m, *sku, catalog));
        ++plan.layouts_evaluated;
      }
    }
  }
  // Order: what fits first; then cost per run when every layout that fits has a price (as
  // rank_candidates ranks sizes), else time to train. Ties go to the simplest layout: least
  // model parallelism, least recomputation, the smallest micro-batch.
  bool all_priced = true;
  for (const Candidate& c : all) all_priced = all_priced && (!c.fits() || c.cost);
  auto key = [&](const Candidate& c) {
    const double t = c.run_seconds.value;
    return std::make_tuple(c.fits() ? 0 : 1, all_priced && c.cost ? c.cost->per_run.value : t, t,
                           c.layout.tp * c.layout.pp, c.layout.pp, c.layout.vp,
                           static_cast<int>(c.layout.recompute), c.layout.micro_batch);
  };
  std::stable_sort(all.begin(), all.end(),
                   [&](const Candidate& a, const Candidate& b) { return key(a) < key(b); });
  // Each size's best layout, or its nearest miss.
  std::map<const SkuEntry*, std::size_t> best;
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto it = best.find(all[i].sku);
    if (it == best.end())
      best[all[i].sku] = i;
    else if (!all[it->second].fits() && !all[i].fits() && nearer(all[i], all[it->second]))
      it->second = i;
  }
  plan.candidates.clear();
  for (const SkuEntry* sku : skus)
    if (auto it = best.find(sku); it != best.end()) plan.candidates.push_back(all[it->second]);
  std::string searched;
  auto dim = [&](const char* key_name, const std::string& what) {
    searched += (searched.empty() ? "" : "; ") + what +
                (pinned(job, key_name) ? " (pinned by " + job.origin.at(key_name) + ")" : "");
  };
  dim("tp", "tp: powers of two ≤ GPUs per VM dividing the heads and KV heads");
  dim("pp", "pp: divisors of the layers up to " + std::to_string(kMaxPipeline));
  dim("vp", "vp (interleaved): 1, or 2-" + std::to_string(kMaxVirtual) +
                " dividing the layers per stage, with pp ≥ 2");
  dim("recompute", "recompute: none, selective, full");
  dim("micro-batch", "micro-batch: 1, 2, 4, 8 dividing each rank's share of the batch");
  dim("zero", pinned(job, "zero") ? "ZeRO stage" : "ZeRO: the least sharding that fits");
  plan.layout_search =
      searched + "; " + std::to_string(plan.layouts_evaluated) + " layouts evaluated on " +
      std::to_string(skus.size()) + " size" + (skus.size() == 1 ? "" : "s") +
      (scale_free ? "; without --gpus: the fewest VMs at which a layout fits" : "") +
      (all_priced ? "; by cost per run" : "");
  plan.layouts = std::move(all);  // finish_layout_search keeps the best few
}

void finish_layout_search(Plan& plan) {
  if (plan.layout_search.empty() || plan.candidates.empty()) return;
  std::vector<Candidate> all = std::move(plan.layouts);
  plan.layouts.clear();
  const Candidate& w = plan.candidates.front();
  const bool by_cost = plan.ranking.rfind("by cost", 0) == 0;
  auto same = [](const Candidate& a, const Candidate& b) {
    return a.sku == b.sku && a.vms == b.vms && a.zero == b.zero && a.layout.tp == b.layout.tp &&
           a.layout.pp == b.layout.pp && a.layout.vp == b.layout.vp &&
           a.layout.recompute == b.layout.recompute && a.layout.micro_batch == b.layout.micro_batch;
  };
  plan.layouts.push_back(w);
  plan.layouts.back().why_not = plan.recommended ? "" : why_lost(w, w, false);
  if (plan.recommended) {
    for (const Candidate& c : all) {
      if (plan.layouts.size() >= kLayoutsShown) break;
      if (same(c, w)) continue;
      plan.layouts.push_back(c);
      plan.layouts.back().why_not = why_lost(c, w, by_cost);
    }
  }
  // The report, the hints and --emit describe the chosen layout (or the nearest miss).
  plan.job.tp = w.layout.tp;
  plan.job.pp = w.layout.pp;
  plan.job.vp = w.layout.vp;
  plan.job.recompute = w.layout.recompute;
  plan.job.micro_batch = w.layout.micro_batch;
  plan.job.sequence_parallel = w.layout.sequence_parallel;
}

void explain_layout_search(Plan& plan) {
  if (plan.layout_search.empty() || plan.recommended || plan.layouts.empty()) return;
  plan.hints.insert(plan.hints.begin(),
                    "no layout of the " + std::to_string(plan.layouts_evaluated) +
                        " searched fits; nearest miss: " + layout_text(plan.layouts.front()) +
                        ": " + plan.layouts.front().why_not);
}

}  // namespace trainready
