#pragma once
// Small SVG charts for the HTML report, drawn as text (no script, no external resource, so the
// page opens offline and under a strict Content-Security-Policy). Each chart is a <figure> with
// the SVG (role="img", <title> and <desc>), a caption, and its data as a table: the text
// alternative for screen readers, copying, and print. Colours come from CSS classes (c0..c5,
// ref, ok, bad), so the page's light and dark schemes apply to them.
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace trainready {

using ValueFormat = std::function<std::string(double)>;

struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in x order
  int color = 0;                                  // c0..c5
  bool dashed = false;
};

// A horizontal line across a line chart (expected busbw, AU threshold) or a vertical one across
// a bar chart (usable memory).
struct ChartRefLine {
  std::string name;
  double value = 0;
};

struct LineChartSpec {
  std::string id;  // unique in the page: the SVG's <title>/<desc> ids derive from it
  std::string title;
  std::string description;  // one sentence: what the chart shows and what to look for
  std::string x_title, y_title;
  bool log2_x = false;  // message sizes: ticks at powers of two
  ValueFormat x_format, y_format;
  std::vector<ChartSeries> series;
  std::vector<ChartRefLine> ref_lines;
  double y_min_top = 0;  // the y axis reaches at least this (AU charts: 1)
};

struct BarSegment {
  std::string name;
  int color = 0;
};

struct BarRow {
  std::string label;
  std::vector<double> values;  // one per segment, stacked left to right
  int color_override = -1;     // single-segment bars: c0..c5, or 6 = ok, 7 = bad
};

struct BarChartSpec {
  std::string id;
  std::string title;
  std::string description;
  std::string value_title;
  ValueFormat value_format;
  std::vector<BarSegment> segments;
  std::vector<BarRow> bars;
  std::vector<ChartRefLine> ref_lines;
};

std::string svg_line_chart(const LineChartSpec& spec);
std::string svg_bar_chart(const BarChartSpec& spec);

// Axis steps a reader can add up in their head: 1, 2 or 5 times a power of ten.
double nice_step(double range, int target_ticks);

}  // namespace trainready
