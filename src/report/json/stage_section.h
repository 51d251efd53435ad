#pragma once
// `stage` in the JSON report: the "stage" object (docs/json-output.md), base units throughout.
#include <nlohmann/json.hpp>

#include "facts/stage_facts.h"

namespace trainready {

nlohmann::json stage_json(const StageFacts& s);

}  // namespace trainready
