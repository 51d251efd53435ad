#pragma once
// The plan as JSON (schema_version 1): every number with its unit, formula, inputs and source.
// Field names are documented in docs/plan.md.
#include <string>

#include <nlohmann/json.hpp>

#include "plan/plan.h"

namespace trainready {

nlohmann::json quantity_json(const Quantity& q);
std::string render_plan_json(const Plan& plan);

}  // namespace trainready
