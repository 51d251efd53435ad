#pragma once
// The timeline: samples in, labelled intervals out, totals kept. Live and --replay run the same
// code; only the previous sample is held, so memory stays flat however long the run.
#include <optional>
#include <string>
#include <vector>

#include "watch/attribution.h"
#include "watch/interval.h"
#include "watch/sample.h"
#include "watch/summary.h"

namespace trainready::watch {

struct LabelledInterval {
  Interval interval;
  Verdict verdict;
};

class Timeline {
 public:
  Timeline(IntervalOptions o, Thresholds t) : options_(std::move(o)), attributor_(t) {}
  // The interval this sample closes, labelled; nullopt for the first sample of a session (a
  // recording appended to by a second run restarts the monotonic clock: no interval spans it).
  std::optional<LabelledInterval> add(const Sample& s);
  const Summary& summary() const { return summary_; }
  Summary& summary() { return summary_; }
  const std::optional<Sample>& last() const { return prev_; }

 private:
  IntervalOptions options_;
  Attributor attributor_;
  Summary summary_;
  std::optional<Sample> prev_;
};

// Session boundary: the monotonic clock went backwards or disagrees with the wall clock by more
// than a second plus 10 % (another boot, another run appended to the same file).
bool same_session(const Sample& before, const Sample& after);

// Several nodes' recordings of one job, side by side: each node's intervals labelled as alone,
// then a node whose GPUs idle while its peers' are busy at the same moment is the straggler.
struct NodeTimeline {
  std::string node;
  std::vector<LabelledInterval> intervals;
  Summary summary;
};
// Each interval is compared with the median busy share of the other nodes at its middle, found
// by one sweep over time: linear in M, the intervals of all nodes together (bucket sorts and a
// moving median; rank 0 of a live `watch` judges thousands of ranks' windows this way every
// interval).
void mark_stragglers(std::vector<NodeTimeline>& nodes, const Thresholds& t);
// The same judgement asking every other node at every interval, O(M x nodes): the reference the
// sweep is tested against, and what runs when a node's intervals are not ordered by their end.
void mark_stragglers_direct(std::vector<NodeTimeline>& nodes, const Thresholds& t);

}  // namespace trainready::watch
