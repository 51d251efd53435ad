#include "report/text/pair_bandwidth_text.h"

#include <algorithm>
#include <cstdio>

#include "core/text.h"
#include "queries/pair_outliers.h"

namespace trainready {
namespace {

std::string g3(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.insert(0, w - s.size(), ' ');
  return s;
}

}  // namespace

std::string render_pair_bandwidth_text(const PairBandwidthFacts& f) {
  std::string out = "Bandwidth between nodes (" + terminal_safe(f.transport) + ", " + f.mode +
                    " mode): " + std::to_string(f.nodes.size()) + " nodes, " +
                    std::to_string(f.rounds) + " rounds, " + std::to_string(f.iterations) +
                    " exchanges x " + std::to_string(f.repeats) + " repeats per pair";
  char secs[32];
  std::snprintf(secs, sizeof secs, ", %.1f s\n", f.seconds);
  out += secs;
  if (!f.allreduce.empty()) {
    const AllReducePoint& p = f.allreduce.back();
    out += "  all-reduce over every rank: busbw " + g3(p.busbw_gbytes_per_s) + " GB/s at " +
           std::to_string(p.size_bytes) + " B (" + terminal_safe(f.allreduce_backend) + ")\n";
  } else if (!f.allreduce_skipped.empty()) {
    out += "  all-reduce not run: " + terminal_safe(f.allreduce_skipped) + "\n";
  }
  if (f.expected_gbytes_per_s)
    out += "  expected per pair: " + terminal_safe(f.expected_formula) + "\n";
  const std::uint64_t size = f.largest_size();
  for (const PairMatrix& m : f.matrices) {
    if (m.size_bytes != size) continue;
    out += "  GB/s per direction at " + std::to_string(m.size_bytes) + " B" +
           (f.rails > 1 ? ", rail " + std::to_string(m.rail) : "") + ":\n";
    if (m.nodes > 16) {
      std::vector<double> v;
      double lo = -1;
      std::string lo_pair;
      for (int a = 0; a < m.nodes; ++a)
        for (int b = a + 1; b < m.nodes; ++b) {
          const PairCell& c = m.at(a, b);
          if (!c.measured) continue;
          const double x = c.timed_out ? 0 : c.gbytes_per_s;
          v.push_back(x);
          if (lo < 0 || x < lo) {
            lo = x;
            lo_pair = f.nodes[static_cast<std::size_t>(a)].host + " <-> " +
                      f.nodes[static_cast<std::size_t>(b)].host;
          }
        }
      out += "    median " + g3(median_of(v)) + ", lowest " + g3(std::max(lo, 0.0)) + " (" +
             terminal_safe(lo_pair) + "), " + std::to_string(v.size()) + " pairs\n";
      continue;
    }
    std::size_t w = 6;
    for (const PairNode& n : f.nodes) w = std::max(w, std::min<std::size_t>(n.host.size(), 24));
    out += "    " + pad("", w);
    for (int b = 0; b < m.nodes; ++b) out += " " + pad(std::to_string(b), 7);
    out += "\n";
    for (int a = 0; a < m.nodes; ++a) {
      std::string host = terminal_safe(f.nodes[static_cast<std::size_t>(a)].host);
      if (host.size() > 24) host = host.substr(0, 24);
      out += "    " + pad(host, w);
      for (int b = 0; b < m.nodes; ++b) {
        const PairCell& c = m.at(a, b);
        out += " " + pad(a == b        ? "-"
                         : !c.measured ? "."
                         : c.timed_out ? "timeout"
                                       : g3(c.gbytes_per_s),
                         7);
      }
      out += "  " + std::to_string(a) + "\n";
    }
  }
  return out;
}

}  // namespace trainready
