#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "report/lint_report.h"

namespace trainready {

// schema_version 1, snake_case keys; documented in docs/json-output.md.
nlohmann::json lint_report_json(const LintReport& r);
std::string render_lint_json(const LintReport& r);

}  // namespace trainready
