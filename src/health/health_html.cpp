#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "core/utc_time.h"
#include "health/health_outputs.h"
#include "report/markup_escape.h"

namespace trainready {
namespace {

std::string esc(std::string_view s) { return escape_markup(s); }

// The lane of a transition: what it is about, as its text starts ("mlx5_ib0/1 ...",
// "GPU 0 (00000000:18:00.0) ...", "Xid 79 on ...", "nvidia-smi -q ...", "rebooted: ...").
std::string lane_of(const std::string& text) {
  if (text.rfind("GPU ", 0) == 0) {
    const std::size_t close = text.find(')');
    const std::size_t space = text.find(' ', 4);
    if (close != std::string::npos && (space == std::string::npos || close < text.find(' ', close)))
      return text.substr(0, close + 1);
    return text.substr(0, space);
  }
  if (text.rfind("Xid ", 0) == 0) {
    const std::size_t on = text.find(" on ");
    return on == std::string::npos ? "Xid" : "Xid" + text.substr(on, text.find(' ', on + 4) - on);
  }
  if (text.rfind("nvidia-smi", 0) == 0) return "nvidia-smi -q";
  if (text.rfind("rebooted", 0) == 0) return "boot";
  return text.substr(0, text.find(' '));
}

const char* tone_of(const std::string& text) {
  for (const char* bad : {"flapping", "dropped", "unresponsive", "failed", "no remap left",
                          "Slowdown active", "DOWN", "POLLING", "Xid "})
    if (text.find(bad) != std::string::npos) return "bad";
  for (const char* good : {"recovered", "cleared", "no longer", "-> ACTIVE"})
    if (text.find(good) != std::string::npos) return "good";
  return "note";
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

void timeline_svg(std::string& o, const HealthState& s) {
  if (s.timeline.empty()) {
    o += "<p>No transitions recorded yet.</p>\n";
    return;
  }
  std::vector<std::string> lanes;
  for (const TimelineEntry& e : s.timeline) {
    const std::string l = lane_of(e.text);
    if (std::find(lanes.begin(), lanes.end(), l) == lanes.end()) lanes.push_back(l);
  }
  const std::int64_t t0 = s.timeline.front().time;
  const std::int64_t t1 = std::max(s.updated_at, t0 + 1);
  const double left = 260, width = 700, row = 26;
  const double height = row * static_cast<double>(lanes.size()) + 40;
  o += "<svg role=\"img\" aria-label=\"transitions over time\" viewBox=\"0 0 980 " + num(height) +
       "\" width=\"980\" height=\"" + num(height) + "\">\n";
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const double y = 20 + row * static_cast<double>(i);
    o += "<text x=\"4\" y=\"" + num(y + 4) + "\" class=\"lane\">" + esc(lanes[i]) + "</text>";
    o += "<line x1=\"" + num(left) + "\" x2=\"" + num(left + width) + "\" y1=\"" + num(y) +
         "\" y2=\"" + num(y) + "\" class=\"axis\"/>\n";
  }
  for (const TimelineEntry& e : s.timeline) {
    const std::size_t i = static_cast<std::size_t>(
        std::find(lanes.begin(), lanes.end(), lane_of(e.text)) - lanes.begin());
    const double x = left + width * static_cast<double>(e.time - t0) / static_cast<double>(t1 - t0);
    const double y = 20 + row * static_cast<double>(i);
    o += "<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"6\" class=\"" + tone_of(e.text) +
         "\"><title>" + esc(utc_text(e.time) + " " + e.text) + "</title></circle>\n";
  }
  o += "<text x=\"" + num(left) + "\" y=\"" + num(height - 6) + "\" class=\"tick\">" +
       esc(utc_text(t0)) + "</text><text x=\"" + num(left + width) + "\" y=\"" + num(height - 6) +
       "\" text-anchor=\"end\" class=\"tick\">" + esc(utc_text(t1)) + "</text>\n</svg>\n";
}

}  // namespace

std::string health_html(const HealthFacts& f, const std::vector<Finding>& findings,
                        const std::string& action, const std::string& node) {
  const HealthState& s = f.state;
  std::string o;
  o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
       "<meta name=\"color-scheme\" content=\"light dark\">\n<title>trainready health: " +
       esc(node) +
       "</title>\n<style>\n"
       "body{font:14px system-ui,sans-serif;margin:1.5em;max-width:1000px}\n"
       "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #8884;"
       "padding:.25em .5em;text-align:left;vertical-align:top}\n"
       ".bad{fill:#c0392b;color:#c0392b}.good{fill:#27ae60;color:#27ae60}"
       ".note{fill:#d68910;color:#b9770e}\n"
       ".axis{stroke:#8886}.lane,.tick{font-size:12px;fill:currentColor}\n"
       "code{font-size:13px}\n</style>\n</head>\n<body>\n";
  o += "<h1>trainready health: " + esc(node) + "</h1>\n<p>" + std::to_string(s.samples) +
       " samples, the last at " + esc(utc_text(s.updated_at)) + " from <code>" + esc(f.source) +
       "</code>. Repair: <strong>" + esc(action) + "</strong>.</p>\n";
  o += "<h2>Transitions</h2>\n";
  timeline_svg(o, s);
  if (!s.timeline.empty()) {
    o += "<table><thead><tr><th>time (UTC)</th><th>transition</th></tr></thead><tbody>\n";
    for (const TimelineEntry& e : s.timeline)
      o += "<tr><td>" + esc(utc_text(e.time)) + "</td><td class=\"" + tone_of(e.text) + "\">" +
           esc(e.text) + "</td></tr>\n";
    o += "</tbody></table>\n";
  }
  o += "<h2>Findings</h2>\n";
  if (findings.empty()) {
    o += "<p>None.</p>\n";
  } else {
    o += "<table><thead><tr><th>severity</th><th>rule</th><th>finding</th><th>what to do</th>"
         "</tr></thead><tbody>\n";
    for (const Finding& x : findings)
      o += "<tr><td>" + esc(to_string(x.severity)) + "</td><td><code>" + esc(x.rule_id) +
           "</code></td><td>" + esc(x.message) + "</td><td>" + esc(x.fix) + "</td></tr>\n";
    o += "</tbody></table>\n";
  }
  o += "<h2>InfiniBand ports</h2>\n";
  if (s.ports.empty())
    o += "<p>None read.</p>\n";
  else {
    o += "<table><thead><tr><th>port</th><th>state</th><th>condition</th><th>flap cycles "
         "(12 h)</th><th>counters (last)</th></tr></thead><tbody>\n";
    for (const auto& [key, h] : s.ports) {
      std::string cs;
      for (const auto& [name, c] : h.counters)
        if (c.last != 0) cs += (cs.empty() ? "" : ", ") + name + " " + std::to_string(c.last);
      o += "<tr><td>" + esc(key) + "</td><td>" + esc(h.state + " " + h.phys_state) + "</td><td>" +
           esc(to_string(h.condition)) + "</td><td>" + std::to_string(h.flaps.size()) +
           "</td><td>" + esc(cs.empty() ? "all 0" : cs) + "</td></tr>\n";
    }
    o += "</tbody></table>\n";
  }
  o += "<h2>GPUs</h2>\n";
  if (s.gpu_series.empty() && s.gpus.empty())
    o += "<p>None read.</p>\n";
  else {
    o += "<table><thead><tr><th>GPU</th><th>counters (non-zero)</th><th>clocks event "
         "reasons active</th><th>remap banks</th></tr></thead><tbody>\n";
    for (const auto& [key, g] : s.gpu_series) {
      std::string cs, rs, bs;
      for (const auto& [name, c] : g.counters)
        if (c.last != 0) cs += (cs.empty() ? "" : ", ") + name + " " + std::to_string(c.last);
      for (const ThrottleReason& r : kThrottleReasons)
        if (g.clocks_event_reasons & r.bit) rs += (rs.empty() ? "" : ", ") + std::string(r.label);
      for (const auto& [a, b] : g.remap_banks)
        bs += (bs.empty() ? "" : ", ") + a + " " + std::to_string(b);
      o += "<tr><td>" + esc(g.name) + "</td><td>" + esc(cs.empty() ? "all 0" : cs) + "</td><td>" +
           esc(rs.empty() ? "none" : rs) + "</td><td>" + esc(bs) + "</td></tr>\n";
    }
    o += "</tbody></table>\n";
  }
  o += "<h2>Probes</h2>\n";
  if (s.probes.empty())
    o += "<p>None ran.</p>\n";
  else {
    o += "<table><thead><tr><th>probe</th><th>hung</th><th>hangs (24 h)</th><th>last "
         "answer</th><th>detail</th></tr></thead><tbody>\n";
    for (const auto& [name, p] : s.probes)
      o += "<tr><td><code>" + esc(name) + "</code></td><td class=\"" +
           (p.hung ? "bad\">yes" : "good\">no") + "</td><td>" +
           std::to_string(p.hang_times.size()) + "</td><td>" +
           esc(p.last_ok ? utc_text(p.last_ok) : std::string("never")) + "</td><td>" +
           esc(p.detail) + "</td></tr>\n";
    o += "</tbody></table>\n";
  }
  o += "</body>\n</html>\n";
  return o;
}

}  // namespace trainready
