#pragma once
#include <string>

#include "report/lint_report.h"

namespace trainready {

// Verdict line, findings (most severe first) with file:line and resource, suppressed ones,
// what could not be resolved.
std::string render_lint_text(const LintReport& r, bool color);

}  // namespace trainready
