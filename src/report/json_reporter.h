#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/doctor_report.h"

namespace trainready {

// One finding as every JSON report writes it (rule, severity, message, evidence, ...).
nlohmann::json finding_json(const Finding& f);
nlohmann::json findings_json(const std::vector<Finding>& findings);
// {"error", "warning", "info", "rule_evaluations"}; each report adds its own counts.
nlohmann::json counts_json(const Evaluation& ev);

// Machine report: schema_version, snake_case keys. Documented in docs/json-output.md.
nlohmann::json doctor_report_json(const DoctorReport& r);
std::string render_json(const DoctorReport& r);

}  // namespace trainready
