#pragma once
// The "plan" section of the JSON report: every number with its unit, formula, inputs and source.
// Field names are documented in docs/plan.md.
#include <nlohmann/json.hpp>

#include "plan/plan.h"

namespace trainready {

nlohmann::json quantity_json(const Quantity& q);
nlohmann::json plan_json(const Plan& plan);

}  // namespace trainready
