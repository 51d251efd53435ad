#pragma once
#include "core/units.h"
// Small helpers shared by the run rules (NCCL log, nccl-tests).
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "facts/nccl_run_facts.h"

namespace trainready {

inline Evidence evidence(const LogLine& l) { return {l.text, l.where}; }

// The process ("host:pid") of NCCL's "host:pid:tid [dev]" line prefix, "" when the line has none.
inline std::string process_of(std::string_view text) {
  const std::string_view head = text.substr(0, text.find(' '));
  const std::size_t c2 = head.rfind(':');
  if (c2 == std::string_view::npos || c2 == 0 || c2 + 1 == head.size()) return "";
  const std::size_t c1 = head.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos || c1 == 0 || c1 + 1 == c2) return "";
  for (std::size_t i = c1 + 1; i < head.size(); ++i)
    if (i != c2 && (head[i] < '0' || head[i] > '9')) return "";
  return std::string(head.substr(0, c2));
}

// A failure that first showed on line `l` (Finding::onset).
inline FailureOnset onset_of(const LogLine& l) { return {l.where, l.time, process_of(l.text)}; }

// The earliest of a problem's example lines (by time where they carry one, else the first kept).
inline FailureOnset first_onset(const std::vector<LogLine>& lines) {
  const LogLine* first = nullptr;
  for (const LogLine& l : lines)
    if (!first || compare_line_time(l.time, first->time) < 0) first = &l;
  return first ? onset_of(*first) : FailureOnset{};
}

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
