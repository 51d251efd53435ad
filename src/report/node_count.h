#pragma once
// How many nodes a report judged, for reporters that name a finding's or a skip's node only
// among several.
#include <cstddef>

#include "report/report.h"

namespace trainready {

// Its nodes' facts, or, for a fleet judged by group leaders without them (text, HTML, SARIF,
// JUnit: rank 0 gets the leaders' outcomes, not the facts), the nodes the cluster rules compared.
std::size_t judged_node_count(const Report& r);

}  // namespace trainready
