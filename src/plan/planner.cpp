// The planner: the job's run length and data, one candidate per VM size, then the ranking and
// the recommendation. Each model is a pure function of its inputs (src/plan/*_model.cpp);
// candidate_evaluation.cpp wires them, recommendation.cpp judges.
#include <algorithm>
#include <cmath>

#include "core/input_error.h"
#include "core/text.h"
#include "core/units.h"
#include "plan/candidate_evaluation.h"
#include "plan/layout_search.h"
#include "plan/model_shape.h"
#include "plan/plan.h"
#include "plan/recommendation.h"

namespace trainready {
namespace {

constexpr double kChinchillaTokensPerParam = 20;

}  // namespace

Plan make_plan(const JobSpec& job, const Catalog& catalog) {
  Plan plan;
  plan.job = job;
  const ModelShape m = model_shape(job);
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
  if (layout_search_wanted(plan.job, m))
    search_layouts(plan, m, skus, catalog);
  else
    for (const SkuEntry* s : skus) plan.candidates.push_back(size_candidate(plan, m, *s, catalog));
  rank_candidates(plan);
  finish_layout_search(plan);
  explain_recommendation(plan, m, catalog);
  explain_layout_search(plan);
  return plan;
}

}  // namespace trainready
