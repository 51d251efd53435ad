#pragma once
// The report's pictures, each built from the parts of a Report it needs; an empty string when
// those parts are absent, so a page never shows an empty chart.
#include <string>

#include "report/report.h"

namespace trainready {

// busbw against message size (log2), out-of-place and in-place, with the expected busbw: from
// the bench sweep (r.collective), else the nccl-tests rows.
std::string busbw_chart(const Report& r);
// Feed mode: AU per accelerator count with the threshold, delivered vs demanded bandwidth.
// Raw reads: measured vs needed, when the accelerators' demand is known.
std::string storage_charts(const Report& r);
// Memory per GPU of the recommended candidate by component, and cost (or time) per candidate.
std::string plan_charts(const Report& r);

}  // namespace trainready
