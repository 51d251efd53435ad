#pragma once
// The "fleet" section of `fleet --json`: the ranks (who answered with what) and the two views of
// the findings (per node, by cause). Documented in docs/json-output.md.
#include <nlohmann/json.hpp>

#include "report/report.h"

namespace trainready {

nlohmann::json fleet_json(const Report& r);

}  // namespace trainready
