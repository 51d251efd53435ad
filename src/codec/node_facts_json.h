#pragma once
// JSON views of the facts (snake_case): the "facts" section of `doctor --json`, and the
// nvml.json file a snapshot carries for its GPUs.
#include <string>

#include <nlohmann/json.hpp>

#include "facts/node_facts.h"

namespace trainready {

nlohmann::json to_json(const NodeFacts& n);
// to_json(n).dump(2) as it would appear `indent` spaces deep in a larger document, appended to
// `out` without building the tree (a fleet report writes thousands of nodes).
void write_node_facts_json(std::string& out, const NodeFacts& n, unsigned indent);
nlohmann::json gpu_facts_to_json(const GpuFacts& g);
std::string fact_status_name(FactStatus s);

}  // namespace trainready
