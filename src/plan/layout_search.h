#pragma once
// The layout search: when the job leaves them open, tensor parallelism (inside a VM, dividing the
// attention and KV heads), pipeline parallelism (dividing the layers), recomputation and the
// micro-batch, for each VM size; the ZeRO stage is the least sharding that fits
// (candidate_evaluation.cpp). Every layout goes through the planner's own models; the ranking is
// rank_candidates'. docs/plan.md gives the constraints and formulas with their sources.
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "plan/candidate_evaluation.h"
#include "plan/plan.h"

namespace trainready {

// True when the shape is known (layers, hidden, heads) and the job pins not all of --tp, --pp,
// --recompute and --micro-batch.
bool layout_search_wanted(const JobSpec& job, const ModelShape& m);

// Evaluates every layout on every size: plan.candidates gets each size's best layout (or, when
// none fits, its nearest miss) for rank_candidates to rank.
void search_layouts(Plan& plan, const ModelShape& m, const std::vector<const SkuEntry*>& skus,
                    const Catalog& catalog);
// After rank_candidates: plan.layouts keeps the winner and the best few runners-up with why
// each lost, and plan.job takes the winner's layout so the report and --emit describe it.
void finish_layout_search(Plan& plan);

// After explain_recommendation: when no layout fits, a hint naming the nearest miss.
void explain_layout_search(Plan& plan);

// The number of layouts the search would evaluate for one size (for tests and the benchmark).
int layout_count(const JobSpec& job, const ModelShape& m, const SkuEntry& sku);

}  // namespace trainready
