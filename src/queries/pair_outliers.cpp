#include "queries/pair_outliers.h"

#include <algorithm>
#include <cmath>

namespace trainready {
namespace {

// Bandwidths spread by factors, not by amounts (a path at half speed is as far off at 400 Gb/s
// as at 40), so the robust statistics are taken on their logarithms: the median and MAD of
// log(x), and Iglewicz & Hoaglin's modified z-score 0.6745 (log x - median) / MAD. On a linear
// scale a few noisy cells (two ranks sharing a core, a busy switch) inflate the MAD so much that
// a cell at 2 % of its peers still scores above -3.5 with four nodes. A timed-out cell (0) is
// floored far below any measurement.
double log_of(double x) { return std::log(std::max(x, 1e-12)); }

std::vector<double> logs_of(const std::vector<double>& v) {
  std::vector<double> out;
  out.reserve(v.size());
  for (double x : v) out.push_back(log_of(x));
  return out;
}

double mad_of(const std::vector<double>& v, double median) {
  std::vector<double> d;
  d.reserve(v.size());
  for (double x : v) d.push_back(std::fabs(x - median));
  return median_of(std::move(d));
}

// Against peers whose values are `v` (linear GB/s): the log-scale median and MAD.
struct Spread {
  double median = 0;      // GB/s
  double log_median = 0;  // of log(GB/s)
  double log_mad = 0;
};

Spread spread_of(const std::vector<double>& v) {
  Spread s;
  s.median = median_of(v);
  const std::vector<double> l = logs_of(v);
  s.log_median = median_of(l);
  s.log_mad = mad_of(l, s.log_median);
  return s;
}

double modified_z(double x, const Spread& s) {
  return s.log_mad > 0 ? 0.6745 * (log_of(x) - s.log_median) / s.log_mad : 0;
}

bool low(double x, const Spread& s, const PairOutlierOptions& o) {
  if (!(s.median > 0)) return false;
  if (x >= s.median * (1 - o.min_drop)) return false;
  return s.log_mad <= 0 || modified_z(x, s) < -o.z_threshold;
}

}  // namespace

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const std::size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m), v.end());
  const double hi = v[m];
  if (v.size() % 2) return hi;
  const double lo = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m));
  return (lo + hi) / 2;
}

PairClassification classify_pairs(const PairMatrix& m, const PairOutlierOptions& o) {
  PairClassification c;
  const int n = m.nodes;
  c.nodes = n;
  auto value = [&](int a, int b) {
    const PairCell& x = m.at(a, b);
    return x.timed_out ? 0.0 : x.gbytes_per_s;
  };
  auto has = [&](int a, int b) { return a != b && m.at(a, b).measured; };

  // Rows: each node's median over its peers.
  std::vector<double> medians;
  std::vector<int> row_of(static_cast<std::size_t>(n), -1);
  for (int a = 0; a < n; ++a) {
    NodeOutlier row;
    row.node = a;
    std::vector<double> v;
    for (int b = 0; b < n; ++b) {
      if (!has(a, b)) continue;
      v.push_back(value(a, b));
      row.timed_out += m.at(a, b).timed_out ? 1 : 0;
    }
    if (v.empty()) continue;
    row.cells = static_cast<int>(v.size());
    row.row_median = median_of(std::move(v));
    row_of[static_cast<std::size_t>(a)] = static_cast<int>(c.rows.size());
    medians.push_back(row.row_median);
    c.rows.push_back(row);
  }
  const Spread rows = spread_of(medians);
  c.node_median = rows.median;
  c.node_mad = rows.log_mad;
  // With two nodes there is one cell: a slow pair cannot be pinned on either node.
  const bool rows_judged = c.rows.size() >= 3;
  if (!rows_judged)
    c.note = "fewer than three nodes: a low cell cannot be told apart from a low node";
  std::vector<bool> bad(static_cast<std::size_t>(n), false);
  for (NodeOutlier& row : c.rows) {
    row.modified_z = modified_z(row.row_median, rows);
    row.low_vs_peers = rows_judged && low(row.row_median, rows, o);
    // Against the catalog only when the peers reach it: a whole fleet below its figure is
    // fleet-bandwidth-below-expected, not one bad node per row.
    row.low_vs_expected = rows_judged && o.expected_gbytes &&
                          row.row_median < *o.expected_gbytes * o.expected_fraction &&
                          c.node_median >= *o.expected_gbytes * o.expected_fraction;
    if (row.low_vs_peers || row.low_vs_expected) {
      bad[static_cast<std::size_t>(row.node)] = true;
      c.bad_nodes.push_back(row.node);
    }
  }

  // Cells: against the cells between nodes that are not bad.
  std::vector<double> cells;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b)
      if (has(a, b) && !bad[static_cast<std::size_t>(a)] && !bad[static_cast<std::size_t>(b)])
        cells.push_back(value(a, b));
  Spread peers = spread_of(cells);
  c.cell_median = peers.median;
  c.cell_mad = peers.log_mad;
  if (!(peers.median > 0)) peers = rows;  // every good cell timed out: the rows' view
  const double all_median = peers.median;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (!has(a, b)) continue;
      const double x = value(a, b);
      LinkOutlier l;
      l.a = a;
      l.b = b;
      l.gbytes = x;
      l.timed_out = m.at(a, b).timed_out;
      l.modified_z = modified_z(x, peers);
      l.low_vs_peers = l.timed_out || low(x, peers, o);
      l.low_vs_expected = o.expected_gbytes && x < *o.expected_gbytes * o.expected_fraction &&
                          all_median >= *o.expected_gbytes * o.expected_fraction;
      if (!l.low_vs_peers && !l.low_vs_expected) continue;
      c.suspicious.emplace_back(a, b);
      if (!bad[static_cast<std::size_t>(a)] && !bad[static_cast<std::size_t>(b)])
        c.bad_links.push_back(l);
    }
  }
  // A low row is re-tested whole, not only its low cells: with few peers one slow link and one
  // noisy cell make a low median, and only the noisy cell's second value can clear the node.
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      if (!has(a, b) || (!bad[static_cast<std::size_t>(a)] && !bad[static_cast<std::size_t>(b)]))
        continue;
      if (std::find(c.suspicious.begin(), c.suspicious.end(), std::make_pair(a, b)) ==
          c.suspicious.end())
        c.suspicious.emplace_back(a, b);
    }
  }
  return c;
}

}  // namespace trainready
