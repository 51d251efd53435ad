#include "report/html/pair_heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "queries/pair_outliers.h"
#include "report/html/html_format.h"
#include "report/html/svg_chart.h"
#include "report/markup_escape.h"

namespace trainready {
namespace {

std::string esc(std::string_view s) { return escape_markup(s); }

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string gb(double v) { return fmt_short(v) + " GB/s"; }

// Red (0) through yellow to green (at or above the top of the scale), by hue; lightness stays
// mid so the light and dark page schemes both read it. Colour is not the only channel: every
// cell has its value in a <title> and in the table below.
std::string colour(double ratio) {
  const double r = std::clamp(ratio, 0.0, 1.0);
  char b[48];
  std::snprintf(b, sizeof b, "hsl(%.0f, 70%%, 45%%)", r * 120);
  return b;
}

double reference_of(const PairBandwidthFacts& f, const PairMatrix& m, bool& from_catalog) {
  from_catalog = f.expected_gbytes_per_s.has_value();
  if (from_catalog) return *f.expected_gbytes_per_s;
  std::vector<double> v;
  for (int a = 0; a < m.nodes; ++a)
    for (int b = a + 1; b < m.nodes; ++b)
      if (m.at(a, b).measured && !m.at(a, b).timed_out) v.push_back(m.at(a, b).gbytes_per_s);
  return median_of(v);
}

}  // namespace

std::string svg_pair_heatmap(const PairBandwidthFacts& f, const PairMatrix& m) {
  const int n = m.nodes;
  if (n < 2) return "";
  bool from_catalog = false;
  const double ref = reference_of(f, m, from_catalog);
  double top = ref;
  for (const PairCell& c : m.cells)
    if (c.measured && !c.timed_out) top = std::max(top, c.gbytes_per_s);
  if (!(top > 0)) top = 1;
  // Cells shrink with the node count so 512 nodes still fit a page (2 px each); labels only
  // while they can be read.
  const double cell = std::clamp(480.0 / n, 2.0, 36.0);
  const bool labels = cell >= 12;
  const double left = labels ? 120 : 10;
  const double top_margin = 10;
  const double grid = cell * n;
  const double legend_y = top_margin + grid + 24;
  const double width = left + grid + 20;
  const double height = legend_y + 56;
  const std::string id = "pairs-r" + std::to_string(m.rail);
  std::string title = "Pair bandwidth" + (f.rails > 1 ? " on rail " + std::to_string(m.rail) : "") +
                      " at " + fmt_size_iec(static_cast<double>(m.size_bytes));
  std::string s = "<figure><svg class=\"chart heatmap\" role=\"img\" viewBox=\"0 0 " + num(width) +
                  " " + num(height) + "\" width=\"" + num(width) + "\" aria-labelledby=\"" + id +
                  "-t " + id + "-d\"><title id=\"" + id + "-t\">" + esc(title) +
                  "</title><desc id=\"" + id +
                  "-d\">Each cell is the bandwidth per direction "
                  "between two nodes, green at or above the marked " +
                  (from_catalog ? "expected value" : "median of all pairs") +
                  ", red towards zero; a low row is a slow node, a single low cell a slow link."
                  "</desc>";
  for (int a = 0; a < n; ++a) {
    const double y = top_margin + a * cell;
    if (labels)
      s += "<text x=\"" + num(left - 4) + "\" y=\"" + num(y + cell * 0.65) +
           "\" text-anchor=\"end\" class=\"tick\">" +
           esc(f.nodes[static_cast<std::size_t>(a)].host) + "</text>";
    for (int b = 0; b < n; ++b) {
      const double x = left + b * cell;
      if (a == b) continue;
      const PairCell& c = m.at(a, b);
      const std::string pair = f.nodes[static_cast<std::size_t>(a)].host + " <-> " +
                               f.nodes[static_cast<std::size_t>(b)].host;
      if (!c.measured) {
        s += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(cell) +
             "\" height=\"" + num(cell) + "\" fill=\"none\" class=\"missing\"><title>" + esc(pair) +
             ": not measured</title></rect>";
        continue;
      }
      const std::string value = c.timed_out ? std::string("timed out") : gb(c.gbytes_per_s);
      s += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(cell) + "\" height=\"" +
           num(cell) + "\" fill=\"" + colour(c.timed_out ? 0 : c.gbytes_per_s / ref) +
           "\"><title>" + esc(pair) + ": " + esc(value) +
           (c.retested ? " (re-tested; first " + gb(c.first_gbytes_per_s) + ")" : "") +
           "</title></rect>";
      if (c.timed_out)
        s += "<path class=\"ref\" d=\"M" + num(x) + " " + num(y) + "L" + num(x + cell) + " " +
             num(y + cell) + "\"/>";
    }
  }
  // The scale, with the reference marked on it.
  const int steps = 24;
  for (int i = 0; i < steps; ++i) {
    const double v = top * i / steps;
    s += "<rect x=\"" + num(left + grid * i / steps) + "\" y=\"" + num(legend_y) + "\" width=\"" +
         num(grid / steps + 0.5) + "\" height=\"10\" fill=\"" + colour(v / ref) + "\"/>";
  }
  const double rx = left + grid * std::min(ref / top, 1.0);
  s += "<path class=\"ref\" d=\"M" + num(rx) + " " + num(legend_y - 4) + "V" + num(legend_y + 16) +
       "\"/><text class=\"ref-label\" x=\"" + num(rx) + "\" y=\"" + num(legend_y + 30) +
       "\" text-anchor=\"middle\">" + esc((from_catalog ? "expected " : "median ") + gb(ref)) +
       "</text><text class=\"tick\" x=\"" + num(left) + "\" y=\"" + num(legend_y + 44) +
       "\">0</text><text class=\"tick\" x=\"" + num(left + grid) + "\" y=\"" + num(legend_y + 44) +
       "\" text-anchor=\"end\">" + esc(gb(top)) + "</text></svg>";
  s += "<figcaption>" + esc(title) +
       ", per direction with both directions at once; the scale "
       "marks the " +
       esc(from_catalog ? "expected " + gb(ref) + " (" + f.expected_formula + ")"
                        : "median pair, " + gb(ref) +
                              (f.expected_why_unknown.empty()
                                   ? ""
                                   : " (no catalog figure: " + f.expected_why_unknown + ")")) +
       ".</figcaption>";
  if (n <= 32) {
    s += "<details><summary>Values (GB/s)</summary><table class=\"data\"><thead><tr><th></th>";
    for (int b = 0; b < n; ++b)
      s += "<th>" + esc(f.nodes[static_cast<std::size_t>(b)].host) + "</th>";
    s += "</tr></thead><tbody>";
    for (int a = 0; a < n; ++a) {
      s += "<tr><th>" + esc(f.nodes[static_cast<std::size_t>(a)].host) + "</th>";
      for (int b = 0; b < n; ++b) {
        const PairCell& c = m.at(a, b);
        s += "<td>" +
             std::string(a == b || !c.measured ? ""
                         : c.timed_out         ? "timed out"
                                               : fmt_short(c.gbytes_per_s)) +
             "</td>";
      }
      s += "</tr>";
    }
    s += "</tbody></table></details>";
  }
  return s + "</figure>";
}

std::string pair_bandwidth_html(const PairBandwidthFacts& f) {
  if (f.nodes.empty()) return "";
  std::string s = "<section id=\"pair-bandwidth\"><h2>Bandwidth between nodes</h2><ul>";
  s += "<li>" + esc(f.transport) + " &middot; " + std::to_string(f.nodes.size()) + " nodes, " +
       std::to_string(f.rails) + (f.rails == 1 ? " rail" : " rails") + " &middot; " +
       std::to_string(f.rounds) + " rounds &middot; " + std::to_string(f.iterations) +
       " exchanges x " + std::to_string(f.repeats) + " repeats per pair &middot; step timeout " +
       fmt_seconds(f.step_timeout_s) + " &middot; " + esc(f.mode) + " mode, " +
       fmt_seconds(f.seconds) + "</li>";
  if (!f.rail_meaning.empty()) s += "<li>" + esc(f.rail_meaning) + "</li>";
  s += "</ul>";
  for (const PairMatrix& m : f.matrices)
    if (m.size_bytes == f.largest_size()) s += svg_pair_heatmap(f, m);
  if (!f.allreduce.empty()) {
    LineChartSpec spec;
    spec.id = "fleet-allreduce";
    spec.log2_x = true;
    spec.title = "All-reduce over every rank: busbw by message size";
    spec.description =
        "busbw rises with message size towards the slowest path's bandwidth; a plateau far under "
        "the pairs' values points at a rank or a node, not a link.";
    spec.x_title = "message size (bytes, log2)";
    spec.y_title = "busbw (GB/s = 1e9 B/s)";
    spec.x_format = [](double x) { return fmt_size_iec(x); };
    spec.y_format = [](double y) { return fmt_short(y) + " GB/s"; };
    ChartSeries series{
        f.allreduce_backend.empty() ? "all-reduce" : f.allreduce_backend, {}, 0, false};
    for (const AllReducePoint& p : f.allreduce)
      if (p.size_bytes > 0)
        series.points.emplace_back(static_cast<double>(p.size_bytes), p.busbw_gbytes_per_s);
    spec.series.push_back(series);
    s += svg_line_chart(spec);
  } else if (!f.allreduce_skipped.empty()) {
    s += "<p>All-reduce not run: " + esc(f.allreduce_skipped) + "</p>";
  }
  return s + "</section>\n";
}

}  // namespace trainready
