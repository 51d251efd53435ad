#pragma once
// One self-contained HTML page per report: inline CSS and SVG only, no script and nothing
// fetched (a Content-Security-Policy says so), so it opens offline, from a CI artifact or an
// e-mail, in light or dark mode, and prints. docs/output-formats.md describes its parts.
#include <string>

#include "report/report.h"

namespace trainready {

// Every piece of text from the inputs goes through escape_markup (report/markup_escape.h).
std::string render_html(const Report& r);

}  // namespace trainready
