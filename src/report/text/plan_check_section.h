#pragma once
// `plan --check` for people: each assumption of the plan beside what was measured and the step
// it gives alone, then the plan against the cluster as measured (step, run, cost). With
// `explain`, the recomputed figures' formulas, inputs and sources.
#include <string>

#include "plan/acceptance.h"
#include "report/text/text_format.h"

namespace trainready {

std::string render_plan_check_text(const PlanAcceptance& a, bool explain, const Palette& pal);

}  // namespace trainready
