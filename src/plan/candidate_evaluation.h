#pragma once
// One VM size evaluated for a job: every model of src/plan wired together into a Candidate, with
// the ZeRO stage and VM count chosen when the job leaves them open. The planner and the layout
// search (recommendation.cpp) both call it.
#include <string>

#include "plan/model_shape.h"
#include "plan/plan.h"

namespace trainready {

// At `vms` VMs, with the job's ZeRO stage or else the least sharding that fits (DDP, ZeRO-1, -2,
// then ZeRO-3). memory_only stops after the memory model: enough for a search.
Candidate evaluate(const Plan& plan, const ModelShape& m, const SkuEntry& sku, int vms,
                   const Catalog& catalog, bool memory_only = false);
// The VM count for one size: what the job names, the fewest that fit, or the fastest run within
// the budget.
Candidate size_candidate(const Plan& plan, const ModelShape& m, const SkuEntry& sku,
                         const Catalog& catalog);

std::string stage_name(int zero);  // DDP, ZeRO-1, ...

}  // namespace trainready
