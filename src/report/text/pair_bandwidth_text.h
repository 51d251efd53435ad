#pragma once
// `fleet --bandwidth` in the text report: what was measured and the pair matrix (GB/s per
// direction) for up to 16 nodes; above that one line per rail (median, lowest pair). The
// findings say which node or link is low; this is the data they came from.
#include <string>

#include "facts/pair_bandwidth_facts.h"

namespace trainready {

std::string render_pair_bandwidth_text(const PairBandwidthFacts& f);

}  // namespace trainready
