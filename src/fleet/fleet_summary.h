#pragma once
// The fleet report's two views of the findings: one row per rank with its node's verdict, and the
// findings grouped by cause (rule id) with the nodes each concerns ("3 of 64 nodes").
#include "report/report.h"

namespace trainready {

// From the report's fleet facts, nodes and evaluation (after the rules ran).
FleetSummary summarize_fleet(const Report& r);

}  // namespace trainready
