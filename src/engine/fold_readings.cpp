#include "engine/fold_readings.h"

#include <string>

#include "rules/supporting_readings.h"

namespace trainready {
namespace {

bool same_line(const Provenance& a, const Provenance& b) {
  return !a.source.empty() && a.line > 0 && a.source == b.source && a.line == b.line;
}

}  // namespace

void fold_same_evidence(std::vector<Finding>& findings) {
  for (std::size_t i = 1; i < findings.size(); ++i) {
    if (!is_supporting_reading_rule(findings[i].rule_id)) continue;
    std::size_t target = i;
    for (std::size_t k = 0; k < i && target == i; ++k) {
      if (is_supporting_reading_rule(findings[k].rule_id)) continue;
      for (const Evidence& a : findings[k].evidence)
        for (const Evidence& b : findings[i].evidence)
          if (same_line(a.where, b.where)) target = k;
    }
    if (target == i) continue;
    Finding g = std::move(findings[i]);
    findings.erase(findings.begin() + static_cast<std::ptrdiff_t>(i--));
    Finding& f = findings[target];
    // What the reading adds is its name for the line and its fix for the cause the line's
    // context selects; the finding's own cause stays the account (the reading's full cause, with
    // its alternatives, is in `trainready nccl --rule <id>`).
    f.evidence.push_back({"supporting reading (" + g.rule_id + "): " + g.message, {}});
    if (!g.fix.empty()) {
      if (f.general_fix && !g.general_fix) {
        f.fix = g.fix;  // the first reading the line's context decided replaces the general fix
        f.general_fix = false;
      } else if (f.fix.find(g.fix) == std::string::npos) {
        f.fix += " " + g.fix;  // two readings of one line may give one fix: it is said once
      }
    }
    if (g.severity > f.severity) f.severity = g.severity;
  }
}

}  // namespace trainready
