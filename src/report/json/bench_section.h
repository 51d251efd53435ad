#pragma once
// The "bench" (a collective sweep: every size's min / median / max) and "storage" (fio's field
// names for raw reads, DLIO's for feed mode) sections of the JSON report.
#include <nlohmann/json.hpp>

#include "report/report.h"

namespace trainready {

nlohmann::json collective_json(const CollectiveRun& run);
nlohmann::json storage_json(const StorageRun& run);

}  // namespace trainready
