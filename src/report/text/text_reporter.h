#pragma once
// The report for people: the verdict, what was judged (nodes, the run, the plan, the benchmark),
// the findings (evidence, cause, fix), what could not be checked, and a footer line.
#include <string>

#include "report/report.h"

namespace trainready {

std::string render_text(const Report& r, const RenderStyle& style);

}  // namespace trainready
