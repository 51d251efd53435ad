#pragma once
// The report as JSON (schema_version 2, snake_case keys): the same header for every command —
// tool, command, verdict, counts, exit code, findings, skipped, notes, one entry per rule
// evaluation — then a section for each part judged (nodes, nccl_log, nccl_tests, lint, plan,
// bench, storage). docs/json-output.md documents every key.
#include <string>

#include <nlohmann/json.hpp>

#include "report/report.h"

namespace trainready {

nlohmann::json finding_json(const Finding& f);
nlohmann::json report_json(const Report& r);
std::string render_json(const Report& r);

}  // namespace trainready
