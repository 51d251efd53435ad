#pragma once
// `fleet` in text: one row per rank with its node's verdict, then the findings grouped by cause.
#include <string>

#include "report/report.h"
#include "report/text/text_format.h"

namespace trainready {

std::string render_fleet_text(const Report& r, const Palette& p);

}  // namespace trainready
