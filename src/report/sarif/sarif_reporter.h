#pragma once
// The report as SARIF 2.1.0 (what GitHub code scanning and other SARIF viewers read): the rules
// that ran, and a result per finding located at its file and line where it has one.
#include <string>

#include <nlohmann/json.hpp>

#include "report/report.h"

namespace trainready {

nlohmann::json report_sarif(const Report& r);
std::string render_sarif(const Report& r);

}  // namespace trainready
