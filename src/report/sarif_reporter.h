#pragma once
// SARIF 2.1.0 for GitHub code scanning: one run, the deployment rules as reportingDescriptors
// (helpUri = the rule's doc page), one result per finding with ruleId, level, message and a
// physicalLocation (artifactLocation.uri + region.startLine). Suppressed findings are left out
// of the results (code scanning ignores SARIF suppressions, github/codeql-action#1230) and
// counted in run.properties.
#include <string>

#include <nlohmann/json.hpp>

#include "report/lint_report.h"

namespace trainready {

nlohmann::json lint_report_sarif(const LintReport& r);
std::string render_sarif(const LintReport& r);

}  // namespace trainready
