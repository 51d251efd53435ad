#pragma once
// The `nccl_telemetry` section of the JSON report: what was read of NCCL's and PyTorch's own
// telemetry (sources, versions, per-rank progress), as the parsers transcribed it.
#include <nlohmann/json.hpp>

#include "facts/collective_progress.h"

namespace trainready {

nlohmann::json to_json(const CollectiveProgressFacts& f);

}  // namespace trainready
