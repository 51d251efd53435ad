#pragma once
// `fleet --bandwidth` in the JSON report: the phase's provenance, the all-reduce sweep and every
// pair matrix (docs/json-output.md, "pair_bandwidth").
#include <nlohmann/json.hpp>

#include "facts/pair_bandwidth_facts.h"

namespace trainready {

nlohmann::json pair_bandwidth_json(const PairBandwidthFacts& f);

}  // namespace trainready
