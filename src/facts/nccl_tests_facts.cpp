#include "facts/nccl_tests_facts.h"

#include <algorithm>
#include <map>
#include <set>

namespace trainready {

std::optional<double> NcclTestsRow::busbw() const {
  if (oop_busbw && ip_busbw) return std::max(*oop_busbw, *ip_busbw);
  if (oop_busbw) return oop_busbw;
  return ip_busbw;
}

int NcclTestsFacts::ranks() const {
  std::set<int> r;
  int top = 0;
  for (const auto& d : devices) {
    r.insert(d.rank);
    top = std::max(top, d.rank + 1);
  }
  // Excerpts elide device lines ("..."); the highest rank and nThread x nGpus still count.
  int n = std::max(static_cast<int>(r.size()), top);
  if (devices.empty()) return 0;
  return std::max(n, n_threads * n_gpus);
}

int NcclTestsFacts::runs_printed() const {
  std::map<int, int> per_rank;
  int most = static_cast<int>(headers.size());
  for (const auto& d : devices) most = std::max(most, ++per_rank[d.rank]);
  return most;
}

int NcclTestsFacts::nodes() const {
  std::set<std::string> h;
  for (const auto& d : devices) h.insert(d.host);
  return static_cast<int>(h.size());
}

const NcclTestsRow* NcclTestsFacts::largest() const {
  const NcclTestsRow* best = nullptr;
  for (const auto& r : rows) {
    if (!r.busbw()) continue;
    if (!best || r.size_bytes >= best->size_bytes) best = &r;
  }
  return best;
}

std::optional<double> NcclTestsFacts::peak_busbw() const {
  std::optional<double> best;
  for (const auto& r : rows) {
    if (auto b = r.busbw(); b && (!best || *b > *best)) best = b;
  }
  return best;
}

std::string normalize_collective(std::string name) {
  for (const char* suffix : {"_perf_mpi", "_perf"}) {
    const std::string s(suffix);
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      name.resize(name.size() - s.size());
      break;
    }
  }
  return name;
}

std::optional<double> busbw_factor(const std::string& collective, int ranks) {
  if (ranks <= 0) return std::nullopt;
  const double n = ranks;
  const std::string c = normalize_collective(collective);
  if (c == "all_reduce") return 2.0 * (n - 1) / n;
  if (c == "all_gather" || c == "reduce_scatter" || c == "alltoall" || c == "alltoallv" ||
      c == "gather" || c == "scatter")
    return (n - 1) / n;
  if (c == "broadcast" || c == "reduce" || c == "sendrecv" || c == "hypercube") return 1.0;
  return std::nullopt;
}

}  // namespace trainready
