#pragma once
// The shape every watch rule shares: one label, judged twice over the same timeline. Per
// interval (watch::LabelRule::judge, run by the Attributor in precedence order) it gives the
// interval its label; at the end of a run (Rule::evaluate over WatchFacts) it reports the time
// that label took on each node, as a finding of the shared report.
#include <cstdio>
#include <optional>
#include <string>

#include "core/units.h"
#include "facts/watch_facts.h"
#include "rules/rule.h"
#include "watch/window.h"

namespace trainready {

class WatchRule : public Rule, public watch::LabelRule {
 public:
  RuleScope scope() const override { return RuleScope::kWatch; }
  std::string_view rule_id() const override { return id(); }
  RuleOutcome evaluate(const RuleContext& ctx) const override;

 protected:
  // The finding's message for a node whose timeline holds this label.
  virtual std::string message(const WatchNodeFacts& n, const WatchLabelShare& s) const = 0;
  virtual std::string cause() const = 0;
  virtual std::string fix() const = 0;
};

namespace watch_text {

inline std::string pct(double ratio) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f %%", ratio * 100);
  return b;
}

inline std::string rate_or_na(const std::optional<double>& v) {
  return v ? format_rate_si(*v) : std::string("unavailable");
}

// Thresholds are powers of two (64 KiB/s, 1 MiB/s): print them as such.
inline std::string binary_rate(double bytes_per_s) {
  return format_bytes_binary(static_cast<std::uint64_t>(bytes_per_s)) + "/s";
}

// --explain continues a rule's text under its first line.
inline constexpr const char* kMore = "\n                 ";

// "12 intervals, 3 s"
std::string span(const WatchLabelShare& s);

}  // namespace watch_text
}  // namespace trainready
