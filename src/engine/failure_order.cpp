#include "engine/failure_order.h"

namespace trainready {

namespace {

std::string when(const FailureOnset& o) {
  std::string s = o.where.str();
  if (o.time.known()) s += " at " + o.time.str();
  if (!o.process.empty()) s += " (" + o.process + ")";
  return s;
}

}  // namespace

int compare_onsets(const FailureOnset& a, const FailureOnset& b) {
  if (a.empty() || b.empty()) return 0;
  if (a.time.known() && b.time.known()) return compare_line_time(a.time, b.time);
  if (a.where.source != b.where.source || a.where.line <= 0 || b.where.line <= 0) return 0;
  if (!a.process.empty() && !b.process.empty() && a.process != b.process) return 0;
  if (a.where.line == b.where.line) return 0;
  return a.where.line < b.where.line ? -1 : 1;
}

void put_first_failure_first(std::vector<Finding>& findings) {
  for (std::size_t i = 0; i < findings.size(); ++i) {
    if (!findings[i].consequence || findings[i].onset.empty()) continue;
    std::size_t root = findings.size();
    for (std::size_t j = i + 1; j < findings.size(); ++j) {
      const Finding& r = findings[j];
      if (r.consequence || r.onset.empty()) continue;
      if (compare_onsets(r.onset, findings[i].onset) >= 0) continue;
      if (root == findings.size() || compare_onsets(r.onset, findings[root].onset) < 0) root = j;
    }
    if (root == findings.size()) continue;
    Finding r = std::move(findings[root]);
    findings.erase(findings.begin() + static_cast<std::ptrdiff_t>(root));
    Finding& c = findings[i];
    if (c.severity > r.severity) r.severity = c.severity;
    r.evidence.push_back({"first failure in time: " + when(r.onset) + "; " + c.rule_id + " (" +
                              c.message + ") came later, " + when(c.onset) + ", and follows it",
                          {}});
    r.fix += (r.fix.empty() ? "" : " ") +
             std::string("Confirm the order: with this failure fixed, the later ") + c.rule_id +
             " should not recur; if it does, it has a cause of its own.";
    c.evidence.push_back({"follows an earlier failure: " + r.rule_id + " at " + when(r.onset) +
                              " (read that one first)",
                          {}});
    findings.insert(findings.begin() + static_cast<std::ptrdiff_t>(i), std::move(r));
    ++i;  // the consequence, now after its failure
  }
}

}  // namespace trainready
