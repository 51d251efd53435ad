#pragma once
// `fleet --bandwidth` in the HTML page: the pair matrix as a heat map (one per rail, at the
// largest size) with the reference value marked on its scale, and the all-reduce's busbw against
// message size. Drawn as SVG text like svg_chart.h: no script, each figure with its data as a
// table.
#include <string>

#include "facts/pair_bandwidth_facts.h"

namespace trainready {

// An SVG heat map of one matrix: cell colour by GB/s on a scale from 0 to the larger of the
// reference and the highest cell, the reference (the catalog's figure, else the median cell)
// drawn as a line on the scale, timed-out cells crossed.
std::string svg_pair_heatmap(const PairBandwidthFacts& f, const PairMatrix& m);

// The whole section: what was measured, the heat maps, the all-reduce chart. Empty without
// facts.
std::string pair_bandwidth_html(const PairBandwidthFacts& f);

}  // namespace trainready
