#pragma once
// The nvml.json a snapshot carries (what the NVML probe saw on the node it came from).
#include <string>
#include <string_view>

#include "facts/node_facts.h"

namespace trainready {

GpuFacts parse_gpu_inventory_json(std::string_view text, const std::string& source);

}  // namespace trainready
