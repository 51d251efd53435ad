#include "rules/run/nccl_tests_worlds.h"

#include <algorithm>
#include <map>

namespace trainready {

std::string nccl_tests_process(const NcclTestsDevice& d) {
  return d.pid > 0 ? d.host + " pid " + std::to_string(d.pid) : d.host;
}

namespace {

// Two headers with no result row and no summary between (the second run began before the first
// ended), or two summaries with no row and no run begun between (a grep of runs one after the
// other keeps their "Collective test starting" lines apart).
const NcclTestsMark* first_together(const std::vector<NcclTestsMark>& marks, bool headers,
                                    const NcclTestsMark** partner, int* count) {
  for (std::size_t i = 1; i < marks.size(); ++i) {
    auto with = [&](const NcclTestsMark& a, const NcclTestsMark& b) {
      return a.text_before == b.text_before && (headers ? a.summaries_before == b.summaries_before
                                                        : a.starts_before == b.starts_before);
    };
    if (!with(marks[i - 1], marks[i])) continue;
    *partner = &marks[i];
    *count = 2;
    for (std::size_t j = i + 1; j < marks.size() && with(marks[i - 1], marks[j]); ++j) ++*count;
    return &marks[i - 1];
  }
  return nullptr;
}

}  // namespace

NcclTestsWorlds separate_worlds(const NcclTestsFacts& t) {
  NcclTestsWorlds w;
  // Each process's own rank numbers. A process alone lists all of its world, 0 to k-1, and no
  // other process lists a rank beyond; one MPI job's processes each hold their own ranks (rank
  // 0's gathers them all under their own pids), so rank 0 alone and ranks above it elsewhere.
  std::map<std::string, std::set<int>> ranks_of;
  int top = -1;
  for (const auto& d : t.devices) {
    ranks_of[nccl_tests_process(d)].insert(d.rank);
    top = std::max(top, d.rank);
  }
  auto alone = [&](const std::string& p) {
    const std::set<int>& r = ranks_of[p];
    return !r.empty() && *r.begin() == 0 && *r.rbegin() == static_cast<int>(r.size()) - 1;
  };
  // A list with a process whose ranks do not start at 0 was gathered by MPI rank 0: the build
  // has MPI, and its headers and summaries are several jobs' (or runs') own.
  for (const auto& [p, r] : ranks_of)
    if (!alone(p)) return w;
  std::map<int, const NcclTestsDevice*> seen;
  std::set<std::string> processes, hosts;
  for (const auto& d : t.devices) {
    auto [it, fresh] = seen.emplace(d.rank, &d);
    if (fresh) continue;
    const NcclTestsDevice& p = *it->second;
    it->second = &d;
    const std::string a = nccl_tests_process(p), b = nccl_tests_process(d);
    // Processes started together may each print the same noise (an X11 or MPI warning)
    // between their lists: only a result row or a summary tells runs one after the other.
    if (a == b || d.rows_before != p.rows_before || d.summaries_before != p.summaries_before)
      continue;  // the same process, or runs one after the other
    if (std::max(*ranks_of[a].rbegin(), *ranks_of[b].rbegin()) < top)
      continue;  // another process listed ranks beyond theirs
    if (w.evidence.empty()) {
      w.evidence.push_back({"rank " + std::to_string(p.rank) + " on " + a, p.where});
      w.evidence.push_back({"rank " + std::to_string(d.rank) + " again, on " + b, d.where});
    }
    processes.insert(a);
    processes.insert(b);
    hosts.insert(p.host);
    hosts.insert(d.host);
  }
  if (!processes.empty()) {
    for (const auto& d : t.devices)
      if (processes.count(nccl_tests_process(d))) w.solo.insert(&d);
  }
  w.processes = static_cast<int>(processes.size());
  const NcclTestsMark* partner = nullptr;
  int count = 0;
  if (const NcclTestsMark* h = first_together(t.headers, true, &partner, &count)) {
    w.evidence.push_back({"a run's header", h->where});
    w.evidence.push_back({"another run's header before any result row", partner->where});
    w.processes = std::max(w.processes, count);
  }
  if (const NcclTestsMark* s = first_together(t.summaries, false, &partner, &count)) {
    w.evidence.push_back({"a run's summary ('Out of bounds values')", s->where});
    w.evidence.push_back({"another run's summary with no result row between", partner->where});
    w.processes = std::max(w.processes, count);
  }
  w.one_host = hosts.size() == 1;
  return w;
}

}  // namespace trainready
