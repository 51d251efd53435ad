#include "report/text/watch_section.h"

namespace trainready {

std::string render_watch_text(const WatchFacts& w) {
  std::string out;
  for (const WatchNodeFacts& n : w.nodes) {
    if (w.nodes.size() > 1) out += "== " + n.node + "\n";
    out += n.text;
  }
  if (w.job) out += w.job->text;
  return out;
}

}  // namespace trainready
