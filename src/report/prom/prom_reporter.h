#pragma once
// Metrics in the Prometheus text format 0.0.4, for node_exporter's textfile collector: the
// verdict, the findings, and what was measured or predicted, in base units (bytes, seconds,
// bytes per second, ratios 0-1). docs/output-formats.md lists the families and labels.
#include <string>

#include "report/report.h"

namespace trainready {

std::string render_prom(const Report& r);

}  // namespace trainready
