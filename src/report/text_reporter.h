#pragma once
#include <string>

#include "report/doctor_report.h"

namespace trainready {

// Human report: verdict first, then each node, then findings most severe first, each with
// evidence, cause and fix. `color` adds ANSI colour (the CLI sets it only on a TTY).
std::string render_text(const DoctorReport& r, bool color);

}  // namespace trainready
