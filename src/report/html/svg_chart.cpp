#include "report/html/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/markup_escape.h"

namespace trainready {
namespace {

constexpr double kWidth = 760;
constexpr double kCharWidth = 6.6;  // of the 12 px sans-serif labels, to lay out the legend

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.1f", v);
  return b;
}

std::string color_class(int c) {
  if (c == 6) return "ok";
  if (c == 7) return "bad";
  return "c" + std::to_string(((c % 6) + 6) % 6);
}

std::string text(double x, double y, const std::string& s, const char* anchor = "start",
                 const char* cls = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" +
         (*cls ? std::string(" class=\"") + cls + "\"" : "") + ">" + escape_markup(s) + "</text>";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& cls) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\" class=\"" + cls + "\"/>";
}

// The opening of a chart's SVG: its accessible name and description.
std::string svg_open(const std::string& id, double height, const std::string& title,
                     const std::string& description) {
  const std::string tid = escape_markup(id + "-title");
  const std::string did = escape_markup(id + "-desc");
  return "<svg class=\"chart\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
         "\" role=\"img\" aria-labelledby=\"" + tid + " " + did +
         "\" xmlns=\"http://www.w3.org/2000/svg\"><title id=\"" + tid + "\">" +
         escape_markup(title) + "</title><desc id=\"" + did + "\">" + escape_markup(description) +
         "</desc>";
}

// The legend across the top: a swatch and the name of each series or reference line.
std::string legend(const std::vector<std::pair<std::string, std::string>>& items, double y) {
  std::string s = "<g class=\"legend\">";
  double x = 70;
  for (const auto& [name, cls] : items) {
    if (cls == "ref") {
      s += line(x, y - 4, x + 18, y - 4, "ref");
    } else {
      s += "<rect x=\"" + num(x) + "\" y=\"" + num(y - 9) +
           "\" width=\"18\" height=\"10\" class=\"" + cls + "\"/>";
    }
    s += text(x + 24, y, name);
    x += 24 + kCharWidth * static_cast<double>(name.size()) + 18;
  }
  return s + "</g>";
}

std::string figure(const std::string& svg, const std::string& title, const std::string& description,
                   const std::string& table) {
  return "<figure>" + svg + "<figcaption><b>" + escape_markup(title) + ".</b> " +
         escape_markup(description) +
         "</figcaption><details class=\"data\"><summary>Data</summary>" + table +
         "</details></figure>\n";
}

}  // namespace

double nice_step(double range, int target_ticks) {
  if (!(range > 0) || target_ticks < 1) return 1;
  const double raw = range / target_ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double n = raw / mag;
  constexpr double kEps = 1e-9;  // 0.2 / 0.1 is 2.0000000000000004
  return (n <= 1 + kEps ? 1 : n <= 2 + kEps ? 2 : n <= 5 + kEps ? 5 : 10) * mag;
}

std::string svg_line_chart(const LineChartSpec& spec) {
  const double height = 320, left = 92, right = 24, top = 40, bottom = 52;
  const double pw = kWidth - left - right, ph = height - top - bottom;
  double x_lo = 0, x_hi = 0, y_hi = spec.y_min_top;
  bool first = true;
  const auto fx = [&](double x) { return spec.log2_x ? std::log2(std::max(x, 1e-300)) : x; };
  for (const ChartSeries& s : spec.series) {
    for (const auto& [x, y] : s.points) {
      if (spec.log2_x && x <= 0) continue;
      x_lo = first ? fx(x) : std::min(x_lo, fx(x));
      x_hi = first ? fx(x) : std::max(x_hi, fx(x));
      y_hi = std::max(y_hi, y);
      first = false;
    }
  }
  for (const ChartRefLine& r : spec.ref_lines) y_hi = std::max(y_hi, r.value);
  if (x_hi <= x_lo) x_lo -= 1, x_hi += 1;
  const double y_step = nice_step(y_hi > 0 ? y_hi : 1, 5);
  const double y_top = std::ceil((y_hi > 0 ? y_hi : 1) / y_step - 1e-9) * y_step;
  const auto px = [&](double x) { return left + (fx(x) - x_lo) / (x_hi - x_lo) * pw; };
  const auto py = [&](double y) { return top + ph - y / y_top * ph; };

  std::string s = svg_open(spec.id, height, spec.title, spec.description);
  // Grid and y ticks.
  s += "<g class=\"axis\">";
  for (double y = 0; y <= y_top + y_step / 2; y += y_step) {
    s += line(left, py(y), left + pw, py(y), "grid");
    s += text(left - 6, py(y) + 4, spec.y_format(y), "end");
  }
  // x ticks: powers of two on a log axis (at most ~9 labels), else nice linear steps.
  if (spec.log2_x) {
    const int k_lo = static_cast<int>(std::ceil(x_lo - 1e-9));
    const int k_hi = static_cast<int>(std::floor(x_hi + 1e-9));
    // Every 1, 2, 5 or 10 powers: with 5 and 10 the labels land on whole KiB, MiB and GiB.
    int every = 20;
    for (int e : {1, 2, 5, 10}) {
      if ((k_hi - k_lo) / e + 1 <= 9) {
        every = e;
        break;
      }
    }
    for (int k = k_lo; k <= k_hi; ++k) {
      if (((k % every) + every) % every != 0) continue;
      const double x = std::ldexp(1.0, k);
      s += line(px(x), top + ph, px(x), top + ph + 5, "tick");
      s += text(px(x), top + ph + 18, spec.x_format(x), "middle");
    }
  } else {
    const double step = std::max(1.0, nice_step(x_hi - x_lo, 8));
    for (double x = std::ceil(x_lo / step) * step; x <= x_hi + 1e-9; x += step) {
      s += line(px(x), top + ph, px(x), top + ph + 5, "tick");
      s += text(px(x), top + ph + 18, spec.x_format(x), "middle");
    }
  }
  s += line(left, top + ph, left + pw, top + ph, "frame");
  s += line(left, top, left, top + ph, "frame");
  s += text(left + pw / 2, height - 10, spec.x_title, "middle", "axis-title");
  s += "<text class=\"axis-title\" text-anchor=\"middle\" transform=\"translate(14 " +
       num(top + ph / 2) + ") rotate(-90)\">" + escape_markup(spec.y_title) + "</text>";
  s += "</g>";
  for (const ChartRefLine& r : spec.ref_lines) {
    s += line(left, py(r.value), left + pw, py(r.value), "ref");
    s += text(left + pw - 4, py(r.value) - 5, r.name + " " + spec.y_format(r.value), "end",
              "ref-label");
  }
  std::vector<std::pair<std::string, std::string>> items;
  for (const ChartSeries& series : spec.series) {
    std::vector<std::pair<double, double>> pts = series.points;
    std::sort(pts.begin(), pts.end());
    const std::string cls = color_class(series.color);
    std::string d;
    for (const auto& [x, y] : pts) {
      if (spec.log2_x && x <= 0) continue;
      d += (d.empty() ? "M" : " L") + num(px(x)) + " " + num(py(y));
    }
    s += "<path class=\"series " + cls + (series.dashed ? " dashed" : "") + "\" d=\"" + d + "\"/>";
    for (const auto& [x, y] : pts) {
      if (spec.log2_x && x <= 0) continue;
      s += "<circle class=\"" + cls + "\" cx=\"" + num(px(x)) + "\" cy=\"" + num(py(y)) +
           "\" r=\"3\"><title>" +
           escape_markup(series.name + ": " + spec.x_format(x) + ", " + spec.y_format(y)) +
           "</title></circle>";
    }
    items.emplace_back(series.name, cls);
  }
  for (const ChartRefLine& r : spec.ref_lines) items.emplace_back(r.name, "ref");
  s += legend(items, 20);
  s += "</svg>";

  // The data table: one row per x, one column per series.
  std::vector<double> xs;
  for (const ChartSeries& series : spec.series)
    for (const auto& p : series.points) xs.push_back(p.first);
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  std::string t = "<table><thead><tr><th>" + escape_markup(spec.x_title) + "</th>";
  for (const ChartSeries& series : spec.series) t += "<th>" + escape_markup(series.name) + "</th>";
  t += "</tr></thead><tbody>";
  for (double x : xs) {
    t += "<tr><td>" + escape_markup(spec.x_format(x)) + "</td>";
    for (const ChartSeries& series : spec.series) {
      auto it = std::find_if(series.points.begin(), series.points.end(),
                             [x](const auto& p) { return p.first == x; });
      t += "<td>" +
           (it == series.points.end() ? std::string() : escape_markup(spec.y_format(it->second))) +
           "</td>";
    }
    t += "</tr>";
  }
  t += "</tbody>";
  if (!spec.ref_lines.empty()) {
    t += "<tfoot>";
    for (const ChartRefLine& r : spec.ref_lines)
      t += "<tr><th>" + escape_markup(r.name) + "</th><td colspan=\"" +
           std::to_string(spec.series.size()) + "\">" + escape_markup(spec.y_format(r.value)) +
           "</td></tr>";
    t += "</tfoot>";
  }
  t += "</table>";
  return figure(s, spec.title, spec.description, t);
}

std::string svg_bar_chart(const BarChartSpec& spec) {
  std::size_t longest = 0;
  for (const BarRow& b : spec.bars) longest = std::max(longest, b.label.size());
  const double left = std::min(300.0, 24 + 7.4 * static_cast<double>(longest));
  const double right = 90, top = 40, bottom = 46, bar_h = 22, gap = 10;
  const double pw = kWidth - left - right;
  const double height = top + bottom + static_cast<double>(spec.bars.size()) * (bar_h + gap);
  double hi = 0;
  for (const BarRow& b : spec.bars) {
    double sum = 0;
    for (double v : b.values) sum += std::max(0.0, v);
    hi = std::max(hi, sum);
  }
  for (const ChartRefLine& r : spec.ref_lines) hi = std::max(hi, r.value);
  const double step = nice_step(hi > 0 ? hi : 1, 5);
  const double x_top = std::ceil((hi > 0 ? hi : 1) / step - 1e-9) * step;
  const auto px = [&](double v) { return left + v / x_top * pw; };
  const double plot_bottom = top + static_cast<double>(spec.bars.size()) * (bar_h + gap);

  std::string s = svg_open(spec.id, height, spec.title, spec.description);
  s += "<g class=\"axis\">";
  for (double v = 0; v <= x_top + step / 2; v += step) {
    s += line(px(v), top, px(v), plot_bottom, "grid");
    s += text(px(v), plot_bottom + 16, spec.value_format(v), "middle");
  }
  s += line(left, top, left, plot_bottom, "frame");
  s += text(left + pw / 2, height - 8, spec.value_title, "middle", "axis-title");
  s += "</g>";
  for (std::size_t i = 0; i < spec.bars.size(); ++i) {
    const BarRow& b = spec.bars[i];
    const double y = top + static_cast<double>(i) * (bar_h + gap) + gap / 2;
    s += text(left - 8, y + bar_h / 2 + 4, b.label, "end");
    double at = 0;
    for (std::size_t k = 0; k < b.values.size(); ++k) {
      const double v = std::max(0.0, b.values[k]);
      const int c = b.color_override >= 0
                        ? b.color_override
                        : (k < spec.segments.size() ? spec.segments[k].color : static_cast<int>(k));
      const std::string name = k < spec.segments.size() ? spec.segments[k].name : "";
      s += "<rect class=\"" + color_class(c) + "\" x=\"" + num(px(at)) + "\" y=\"" + num(y) +
           "\" width=\"" + num(px(at + v) - px(at)) + "\" height=\"" + num(bar_h) + "\"><title>" +
           escape_markup(b.label + (name.empty() ? "" : " " + name) + ": " + spec.value_format(v)) +
           "</title></rect>";
      at += v;
    }
    s += text(px(at) + 6, y + bar_h / 2 + 4, spec.value_format(at));
  }
  for (const ChartRefLine& r : spec.ref_lines) {
    s += line(px(r.value), top - 4, px(r.value), plot_bottom, "ref");
    s += text(px(r.value) + 4, plot_bottom - 4, r.name + " " + spec.value_format(r.value), "start",
              "ref-label");
  }
  std::vector<std::pair<std::string, std::string>> items;
  if (spec.segments.size() > 1)
    for (const BarSegment& seg : spec.segments)
      items.emplace_back(seg.name, color_class(seg.color));
  for (const ChartRefLine& r : spec.ref_lines) items.emplace_back(r.name, "ref");
  if (!items.empty()) s += legend(items, 20);
  s += "</svg>";

  std::string t = "<table><thead><tr><th></th>";
  for (const BarSegment& seg : spec.segments) t += "<th>" + escape_markup(seg.name) + "</th>";
  if (spec.segments.size() > 1) t += "<th>total</th>";
  t += "</tr></thead><tbody>";
  for (const BarRow& b : spec.bars) {
    t += "<tr><th>" + escape_markup(b.label) + "</th>";
    double sum = 0;
    for (double v : b.values) {
      t += "<td>" + escape_markup(spec.value_format(v)) + "</td>";
      sum += v;
    }
    if (spec.segments.size() > 1) t += "<td>" + escape_markup(spec.value_format(sum)) + "</td>";
    t += "</tr>";
  }
  t += "</tbody>";
  if (!spec.ref_lines.empty()) {
    t += "<tfoot>";
    for (const ChartRefLine& r : spec.ref_lines)
      t += "<tr><th>" + escape_markup(r.name) + "</th><td>" +
           escape_markup(spec.value_format(r.value)) + "</td></tr>";
    t += "</tfoot>";
  }
  t += "</table>";
  return figure(s, spec.title, spec.description, t);
}

}  // namespace trainready
