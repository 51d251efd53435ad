#pragma once
// The "plan_check" section of the JSON report (`plan --check`): each assumption beside its
// measurement, and the plan recomputed with them. Field names in docs/plan.md.
#include <nlohmann/json.hpp>

#include "plan/acceptance.h"

namespace trainready {

nlohmann::json plan_check_json(const PlanAcceptance& a);

}  // namespace trainready
