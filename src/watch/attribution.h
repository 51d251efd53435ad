#pragma once
// Attribution: the watch rules (src/rules/watch/, one per label) run over windows of the
// timeline, in a stated precedence, and the first that fires gives the interval its label. This
// class keeps what a window needs (how long everything has been quiet, whether the job ever used
// the network); the tests themselves are the rules'. Rules never read files: they see Intervals
// only, so every rule is testable from a few numbers, live and in --replay alike.
#include <string>
#include <vector>

#include "watch/interval.h"
#include "watch/thresholds.h"
#include "watch/window.h"

namespace trainready::watch {

struct Verdict {
  Label label = Label::kUnknown;
  std::string because;  // the counters that decided, with values and units
  std::string rule_id;  // the watch rule that gave the label
};

// The order the rules are asked in, first match wins (src/rules/watch_precedence.cpp).
struct Precedence {
  std::vector<const LabelRule*> with_gpus;
  std::vector<const LabelRule*> without_gpus;
  const LabelRule* straggler = nullptr;  // over the per-node label, several nodes replayed
};
const Precedence& watch_precedence();

// Labels intervals in order; remembers what a window needs.
class Attributor {
 public:
  explicit Attributor(Thresholds t = {}) : t_(t) {}
  Verdict label(const Interval& iv);
  const Thresholds& thresholds() const { return t_; }

 private:
  Thresholds t_;
  double quiet_seconds_ = 0;
  bool network_seen_ = false;
};

// The straggler rule over one interval among its peers (replay of several nodes): the new
// verdict when it fires.
std::optional<Verdict> judge_straggler(const Interval& iv, const Verdict& alone,
                                       std::optional<double> peers_median_busy, std::size_t peers,
                                       const Thresholds& t);

// For --explain: each rule in precedence order, its thresholds and the counters behind it, from
// the rules themselves.
std::string explain_rules(const Thresholds& t);

}  // namespace trainready::watch
