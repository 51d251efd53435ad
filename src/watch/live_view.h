#pragma once
// What `watch` prints while it samples: one plain line per interval when stdout is not a
// terminal (logs, pipes), a panel redrawn in place when it is.
#include <string>
#include <vector>

#include "watch/attribution.h"
#include "watch/interval.h"
#include "watch/summary.h"

namespace trainready::watch {

std::string live_line(const Interval& iv, const Verdict& v);
std::vector<std::string> live_panel(const Interval& iv, const Verdict& v, const Summary& so_far);

}  // namespace trainready::watch
