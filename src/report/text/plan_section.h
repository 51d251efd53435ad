#pragma once
// The plan for people: the recommendation and its reasons, the ranked candidates, the
// breakdown of the recommended one, the checks to run after deploying, and the assumptions.
// With `explain`, every figure of the recommended candidate is followed by its formula, inputs
// and source.
#include <string>

#include "plan/plan.h"
#include "report/text/text_format.h"

namespace trainready {

std::string render_plan_text(const Plan& plan, bool explain, const Palette& pal);

}  // namespace trainready
