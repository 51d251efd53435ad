// The shared half of the watch rules (rules/watch/watch_rule.h): the end-of-run finding each
// rule reports for its label. Kept beside the registry, not in rules/watch/, where one file is
// one rule.
#include "rules/watch/watch_rule.h"

namespace trainready {

namespace watch_text {
std::string span(const WatchLabelShare& s) {
  return std::to_string(s.intervals) + (s.intervals == 1 ? " interval, " : " intervals, ") +
         format_duration(s.seconds);
}
}  // namespace watch_text

RuleOutcome WatchRule::evaluate(const RuleContext& ctx) const {
  const WatchFacts& w = *ctx.watch;
  const std::string label = watch::label_id(this->label());
  RuleOutcome o;
  bool any = false;
  for (const WatchNodeFacts& n : w.nodes) {
    if (n.intervals == 0) continue;
    any = true;
    const WatchLabelShare* s = n.find(label);
    if (!s || s->intervals == 0) continue;
    Finding f = finding(message(n, *s));
    f.node = n.node;
    if (!s->detail.empty()) f.evidence.push_back({s->detail, {}});
    f.evidence.push_back({"label " + label + ": " + watch_text::span(*s) + ", " +
                              watch_text::pct(s->time_share) + " of " + format_duration(n.seconds) +
                              " watched",
                          {}});
    f.cause = cause();
    f.fix = fix();
    o.findings.push_back(std::move(f));
  }
  if (!any) return RuleOutcome::skip("no interval was sampled (watch needs at least two samples)");
  return o;
}

}  // namespace trainready
