#pragma once
// One offline HTML page for watch recordings: per node, a time series per path (GPU, network,
// storage, input processes) with each interval's label shaded behind it, and the summary.
#include <string>
#include <vector>

#include "watch/timeline.h"

namespace trainready::watch {

std::string watch_html_report(const std::vector<NodeTimeline>& nodes, const Thresholds& t);

}  // namespace trainready::watch
