#pragma once
// JSON form of the run facts (NCCL log, nccl-tests), as the reports embed them.
#include <nlohmann/json.hpp>

#include "facts/nccl_run_facts.h"
#include "facts/nccl_tests_facts.h"

namespace trainready {

nlohmann::json to_json(const NcclRunFacts& f);
nlohmann::json to_json(const NcclTestsFacts& f);

}  // namespace trainready
