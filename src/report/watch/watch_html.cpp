#include "report/watch/watch_html.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <optional>

#include "core/units.h"
#include "report/html/html_style.h"
#include "report/markup_escape.h"

namespace trainready::watch {
namespace {

constexpr double kW = 900, kH = 160, kLeft = 70, kRight = 12, kTop = 10, kBottom = 22;
// A day at 10 Hz is 864,000 intervals: the page draws at most this many points and label bands
// per chart (means over equal time buckets; a band takes its bucket's most common label).
constexpr std::size_t kMaxPoints = 1200;

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

struct Bucket {
  double start = 0, end = 0;
  double sum = 0, weight = 0;
  std::array<double, 8> label_seconds{};
};

using Getter = std::function<std::optional<double>(const Interval&)>;

std::vector<Bucket> bucketize(const std::vector<LabelledInterval>& v, const Getter& get) {
  std::vector<Bucket> out;
  if (v.empty()) return out;
  const double t0 = v.front().interval.start, t1 = v.back().interval.end;
  const std::size_t n = std::min(kMaxPoints, v.size());
  const double width = std::max(1e-9, (t1 - t0) / static_cast<double>(n));
  out.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i].start = t0 + width * static_cast<double>(i);
    out[i].end = out[i].start + width;
  }
  for (const LabelledInterval& li : v) {
    const double mid = (li.interval.start + li.interval.end) / 2;
    std::size_t b = static_cast<std::size_t>((mid - t0) / width);
    b = std::min(b, n - 1);
    out[b].label_seconds[static_cast<int>(li.verdict.label)] += li.interval.seconds;
    if (auto y = get(li.interval)) {
      out[b].sum += *y * li.interval.seconds;
      out[b].weight += li.interval.seconds;
    }
  }
  return out;
}

std::string chart(const std::string& title, const std::string& unit,
                  const std::vector<LabelledInterval>& v, const Getter& get,
                  const std::function<std::string(double)>& fmt, double y_floor) {
  auto buckets = bucketize(v, get);
  double ymax = y_floor;
  bool any = false;
  for (const Bucket& b : buckets) {
    if (b.weight > 0) {
      ymax = std::max(ymax, b.sum / b.weight);
      any = true;
    }
  }
  std::string s = "<figure><figcaption>" + escape_markup(title) + "</figcaption>";
  if (!any) return s + "<p class=\"na\">unavailable in this recording</p></figure>\n";
  if (ymax <= 0) ymax = 1;
  const double t0 = buckets.front().start, t1 = buckets.back().end;
  const double pw = kW - kLeft - kRight, ph = kH - kTop - kBottom;
  auto px = [&](double t) { return kLeft + (t - t0) / std::max(1e-9, t1 - t0) * pw; };
  auto py = [&](double y) { return kTop + ph - y / ymax * ph; };
  s += "<svg class=\"chart\" viewBox=\"0 0 " + num(kW) + " " + num(kH) +
       "\" role=\"img\" aria-label=\"" + escape_markup(title) + "\">";
  for (const Bucket& b : buckets) {
    const auto it = std::max_element(b.label_seconds.begin(), b.label_seconds.end());
    if (*it <= 0) continue;
    const Label l = static_cast<Label>(it - b.label_seconds.begin());
    s += "<rect class=\"band l-" + std::string(label_id(l)) + "\" x=\"" + num(px(b.start)) +
         "\" y=\"" + num(kTop) + "\" width=\"" + num(std::max(0.5, px(b.end) - px(b.start))) +
         "\" height=\"" + num(ph) + "\"><title>" + label_id(l) + "</title></rect>";
  }
  std::string pts;
  for (const Bucket& b : buckets) {
    if (b.weight <= 0) continue;
    pts += num(px((b.start + b.end) / 2)) + "," + num(py(b.sum / b.weight)) + " ";
  }
  s += "<polyline class=\"series\" fill=\"none\" points=\"" + pts + "\"/>";
  s += "<line class=\"axis\" x1=\"" + num(kLeft) + "\" y1=\"" + num(kTop + ph) + "\" x2=\"" +
       num(kW - kRight) + "\" y2=\"" + num(kTop + ph) + "\"/>";
  s += "<text x=\"4\" y=\"" + num(kTop + 10) + "\">" + escape_markup(fmt(ymax)) + "</text>";
  s += "<text x=\"4\" y=\"" + num(kTop + ph) + "\">0</text>";
  s += "<text x=\"" + num(kLeft) + "\" y=\"" + num(kH - 6) + "\">0 s</text>";
  s += "<text x=\"" + num(kW - kRight - 60) + "\" y=\"" + num(kH - 6) + "\">" +
       escape_markup(format_duration(t1 - t0)) + "</text>";
  s += "</svg><p class=\"unit\">" + escape_markup(unit) + "</p></figure>\n";
  return s;
}

std::string pct(double r) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f %%", r * 100);
  return b;
}

const char* kLabelCss =
    ".band{opacity:.35}.l-compute{fill:#2e7d32}.l-communication{fill:#1565c0}"
    ".l-input-storage{fill:#ef6c00}.l-input-cpu{fill:#ad1457}.l-straggler{fill:#6a1b9a}"
    ".l-hang{fill:#b71c1c}.l-idle{fill:#9e9e9e}.l-unknown{fill:#e0e0e0}"
    ".series{stroke:currentColor;stroke-width:1.5}.axis{stroke:currentColor;stroke-width:.5}"
    "svg.chart text{font-size:11px;fill:currentColor}.legend span{display:inline-block;"
    "margin-right:1em}.legend i{display:inline-block;width:1em;height:1em;margin-right:.3em;"
    "vertical-align:middle;opacity:.6}.na{font-style:italic}.unit{margin:0;font-size:.85em}";

}  // namespace

std::string watch_html_report(const std::vector<NodeTimeline>& nodes, const Thresholds& t) {
  std::string title = "trainready watch";
  if (nodes.size() == 1) title += ": " + nodes.front().node;
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; img-src data:\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<meta name=\"color-scheme\" content=\"light dark\"><title>" +
      escape_markup(title) + "</title><style>" + html_report_css() + kLabelCss +
      "</style></head><body>\n<header><h1>" + escape_markup(title) + "</h1></header>\n";
  page += "<p class=\"legend\">";
  for (Label l : kAllLabels) {
    page += "<span><svg width=\"12\" height=\"12\" aria-hidden=\"true\"><rect class=\"band l-" +
            std::string(label_id(l)) + "\" width=\"12\" height=\"12\"/></svg> " + label_id(l) +
            "</span> ";
  }
  page += "</p>\n";
  for (const NodeTimeline& n : nodes) {
    page += "<section><h2>" + escape_markup(n.node) + "</h2><p><strong>" +
            escape_markup(n.summary.headline()) + "</strong></p>\n";
    page +=
        "<table><thead><tr><th>label</th><th>intervals</th><th>time</th><th>GPU idle time "
        "put on it</th></tr></thead><tbody>";
    for (Label l : kAllLabels) {
      const auto& x = n.summary.total(l);
      if (x.intervals == 0) continue;
      page += "<tr><td>" + std::string(label_id(l)) + "</td><td>" + std::to_string(x.intervals) +
              "</td><td>" + escape_markup(format_duration(x.seconds)) + "</td><td>" +
              (n.summary.has_gpus() ? escape_markup(format_duration(x.gpu_idle_seconds)) : "n/a") +
              "</td></tr>";
    }
    page += "</tbody></table>\n";
    const auto& v = n.intervals;
    page += chart(
        "GPU utilization (mean over GPUs)", "ratio of time a kernel ran (NVML)", v,
        [](const Interval& i) { return i.gpu_busy; }, pct, 1.0);
    page += chart(
        "GPU SM active (mean over GPUs)",
        "share of cycles an SM had a warp (DCGM_FI_PROF_SM_ACTIVE, or NVML GPM)", v,
        [](const Interval& i) { return i.gpu_sm_active; }, pct, 1.0);
    page += chart(
        "GPU tensor pipes active (mean over GPUs)",
        "share of cycles (DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, or NVML GPM)", v,
        [](const Interval& i) { return i.gpu_tensor_active; }, pct, 1.0);
    page += chart(
        "NVLink bytes (all GPUs, both ways)", "bytes per second", v,
        [](const Interval& i) -> std::optional<double> {
          if (!i.nvlink_tx_bytes_per_s && !i.nvlink_rx_bytes_per_s) return std::nullopt;
          return i.nvlink_tx_bytes_per_s.value_or(0) + i.nvlink_rx_bytes_per_s.value_or(0);
        },
        [](double x) { return format_rate_si(x); }, 0);
    page += chart(
        "Network: busiest InfiniBand port or NIC, share of line rate", "max(rx, tx) / line rate", v,
        [](const Interval& i) { return network_peak_util(i); }, pct, 1.0);
    page += chart(
        "Network bytes (InfiniBand + counted interfaces, both ways)", "bytes per second", v,
        [](const Interval& i) { return network_bytes_per_s(i); },
        [](double x) { return format_rate_si(x); }, 0);
    page += chart(
        "Storage reads (processes' block reads, else disks; plus NFS and Lustre from the OSTs)",
        "bytes per second", v, [](const Interval& i) { return storage_read_bytes_per_s(i); },
        [](double x) { return format_rate_si(x); }, 0);
    page += chart(
        "Lustre reads (llite read_bytes: what the applications read, page-cache hits included)",
        "bytes per second", v, [](const Interval& i) { return i.lustre_read_bytes_per_s; },
        [](double x) { return format_rate_si(x); }, 0);
    page += chart(
        "Watched processes on the CPU", "cores", v,
        [](const Interval& i) { return i.proc_cpu_cores; },
        [](double x) { return format_number(x) + " cores"; }, 0);
    for (const std::string& u : n.summary.to_json()["unavailable"].get<std::vector<std::string>>())
      page += "<p class=\"na\">unavailable: " + escape_markup(u) + "</p>\n";
    page += "</section>\n";
  }
  page += "<section><h2>How intervals are labelled</h2><pre>" + escape_markup(explain_rules(t)) +
          "</pre></section>\n";
  page += "</body></html>\n";
  return page;
}

}  // namespace trainready::watch
