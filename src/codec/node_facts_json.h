#pragma once
// JSON views of the facts (snake_case): the "facts" section of `doctor --json`, and the
// nvml.json file a snapshot carries for its GPUs.
#include <nlohmann/json.hpp>

#include "facts/node_facts.h"

namespace trainready {

nlohmann::json to_json(const NodeFacts& n);
nlohmann::json gpu_facts_to_json(const GpuFacts& g);
std::string fact_status_name(FactStatus s);

}  // namespace trainready
