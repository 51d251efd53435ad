#pragma once
#include "core/units.h"
// Small helpers shared by the run rules (NCCL log, nccl-tests).
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "core/finding.h"
#include "facts/nccl_run_facts.h"

namespace trainready {

inline Evidence evidence(const LogLine& l) { return {l.text, l.where}; }

// "a, b, c and 4 more"
inline std::string join_limited(const std::set<std::string>& items, std::size_t max = 6) {
  std::string out;
  std::size_t i = 0;
  for (const auto& s : items) {
    if (i == max) {
      out += " and " + std::to_string(items.size() - max) + " more";
      break;
    }
    if (i > 0) out += ", ";
    out += s;
    ++i;
  }
  return out;
}

inline std::string gbytes(double v) { return format_gbytes_per_s(v); }

// The first examples of a problem, and the hosts that reported it.
inline void add_issue_evidence(Finding& f, const NcclIssue& i) {
  for (const auto& l : i.examples) f.evidence.push_back(evidence(l));
  if (i.hosts.size() > 1 || i.count > i.examples.size()) {
    const std::uint64_t n = std::max<std::uint64_t>(i.host_total, i.hosts.size());
    f.evidence.push_back(
        {std::to_string(i.count) + " occurrence(s) on " +
             (i.hosts.empty() ? std::string("unnamed hosts")
                              : std::to_string(n) + " host(s): " + join_limited(i.hosts)),
         {}});
  }
}

inline const NcclIssue* find_issue(const NcclRunFacts& f, NcclProblem p) {
  auto it = f.issues.find(p);
  return it == f.issues.end() ? nullptr : &it->second;
}

}  // namespace trainready
