#pragma once
// After every size is evaluated: the ranking (cost per run where priced, then time), the
// recommendation's reasons and post-deployment checklist, and hints when nothing fits.
#include "catalog/catalog.h"
#include "plan/candidate_evaluation.h"
#include "plan/plan.h"

namespace trainready {

void rank_candidates(Plan& plan);
void explain_recommendation(Plan& plan, const ModelShape& m, const Catalog& catalog);

}  // namespace trainready
