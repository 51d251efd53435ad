#pragma once
// `dcgmi diag -r N` (DCGM 3.x and 4.x): the box "| Diagnostic | Result |" with category rows
// ("-----  Deployment  ----"), one row per test and its result, the per-GPU results (DCGM 4:
// "GPU0: Pass"; DCGM 3: "Fail - GPU: 0", "Skip - All"), and "Warning" rows whose text wraps over
// several lines. "Info" rows are not kept.
#include <string>
#include <string_view>

#include "facts/capture_facts.h"

namespace trainready {

// Throws InputError when no test row is found (an error message, the -j JSON form).
DcgmDiagFacts parse_dcgmi_diag(std::string_view text, const std::string& source);

bool looks_like_dcgmi_diag(std::string_view text);

}  // namespace trainready
