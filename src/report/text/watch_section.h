#pragma once
// `watch` as text: the summary users read, per node ("GPUs were busy 61 % of the time; 31 %
// waiting on the network (...)", the intervals by label, the sources that could not be read).
#include <string>

#include "facts/watch_facts.h"

namespace trainready {

std::string render_watch_text(const WatchFacts& w);

}  // namespace trainready
