#pragma once
// `watch` in the JSON report: the "watch" object (docs/json-output.md), base units (seconds,
// ratios 0..1).
#include <nlohmann/json.hpp>

#include "facts/watch_facts.h"

namespace trainready {

nlohmann::json watch_json(const WatchFacts& w);

}  // namespace trainready
