#include "queries/busbw_from_log.h"

#include "core/units.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace trainready {
namespace {

// nccl-tests names ("all_reduce", "all_reduce_perf", "all_reduce_perf_mpi") against NCCL's
// ("AllReduce").
bool same_collective(const std::string& tests, const std::string& nccl) {
  if (tests.empty() || nccl.empty()) return true;
  std::string a, b;
  for (char c : normalize_collective(tests)) {
    if (c != '_') a += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (char c : nccl) b += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return a == b;
}

}  // namespace

BusbwFromLog explain_busbw_from_log(const NcclTestsFacts& t, const NcclRunFacts& log) {
  BusbwFromLog out;
  const NcclTestsRow* big = t.largest();
  const int nodes = std::max({1, log.max_comm_nodes(), t.nodes()});
  if (const NcclGraphSearch* ring = log.ring_search()) {
    // graph/tuning.cc ncclTopoTuneModel: bw = bwIntra on up to two nodes, else bwInter.
    const double per = nodes <= 2 ? ring->bw_intra : ring->bw_inter;
    out.model_gbytes = ring->channels * per;
    std::string s = "NCCL's ring graph: " + std::to_string(ring->channels) + " channel(s) x " +
                    format_gbytes_per_s(per) + " = " + format_gbytes_per_s(out.model_gbytes) +
                    " (NCCL's own bandwidth model), path " + ring->type_intra + "/" +
                    ring->type_inter;
    if (big && big->busbw() && out.model_gbytes > 0) {
      char r[16];
      std::snprintf(r, sizeof r, "%.2f", *big->busbw() / out.model_gbytes);
      s += "; the table's " + format_gbytes_per_s(*big->busbw()) + " is " + r + "x of it";
    }
    out.lines.push_back(s);
  }
  int rings = 0;
  for (const auto& [id, c] : log.comms) rings = std::max(rings, c.ring_channels);
  if (rings > 0) out.lines.push_back(std::to_string(rings) + " ring channel(s) built");
  if (big) {
    const NcclTuningChoice* at = nullptr;
    for (const auto& [k, c] : log.tuning) {
      if (c.bytes == big->size_bytes && same_collective(t.collective, c.collective)) at = &c;
    }
    if (at) {
      std::string s =
          "at " + std::to_string(at->bytes) + " B NCCL chose " + at->algo + "/" + at->proto;
      if (at->channel_lo >= 0)
        s += " on channels " + std::to_string(at->channel_lo) + ".." +
             std::to_string(at->channel_hi);
      out.lines.push_back(s);
    }
  }
  std::string tr;
  for (const auto& [k, u] : log.transports)
    tr += (tr.empty() ? "" : ", ") + k + " (" + std::to_string(u.connections) + ")";
  if (!tr.empty()) out.lines.push_back("connections via " + tr);
  return out;
}

}  // namespace trainready
