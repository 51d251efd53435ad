#include "report/text/fleet_section.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "engine/shared_findings.h"

namespace trainready {
namespace {

std::string pad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s + " " : s + std::string(w - s.size(), ' ');
}

const char* verdict_word(const std::string& v) {
  if (v == "ready") return "READY";
  if (v == "warnings") return "WARNINGS";
  if (v == "not_ready") return "NOT READY";
  return "NO FACTS";
}

std::string list(const std::vector<std::string>& v, std::size_t max) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < max; ++i) s += (i ? ", " : "") + v[i];
  if (v.size() > max) s += ", and " + std::to_string(v.size() - max) + " more";
  return s;
}

}  // namespace

std::string render_fleet_text(const Report& r, const Palette& p) {
  const FleetFacts& fl = *r.fleet;
  const FleetSummary& s = *r.fleet_summary;
  std::string out;
  char line[200];
  std::snprintf(line, sizeof(line),
                "Fleet: %d rank%s (launcher: %s), facts gathered in %.2f s (deadline %.0f s)",
                fl.size, fl.size == 1 ? "" : "s", fl.launcher.c_str(), fl.gather_s, fl.timeout_s);
  out += p.wrap(line, "1") + "\n";
  out += "  " + std::to_string(s.ready) + " ready, " + std::to_string(s.warnings) +
         " with warnings, " + std::to_string(s.not_ready) + " not ready, " +
         std::to_string(s.no_facts) + " without facts\n\n";
  std::size_t wnode = 4;
  std::size_t whost = 4;
  for (const FleetNodeRow& x : s.rows) {
    wnode = std::max(wnode, x.node.size());
    whost = std::max(whost, x.host.size());
  }
  wnode = std::min<std::size_t>(wnode + 2, 40);
  whost = std::min<std::size_t>(whost + 2, 32);
  out += "  " + pad("rank", 6) + pad("node", wnode) + pad("host", whost) + pad("verdict", 11) +
         "findings\n";
  for (const FleetNodeRow& x : s.rows) {
    const std::string v = verdict_word(x.verdict);
    out += "  " + pad(std::to_string(x.rank), 6) + pad(x.node, wnode) + pad(x.host, whost) +
           pad(v, 11) + (x.rules.empty() ? std::string("-") : list(x.rules, 4)) + "\n";
  }
  out += "\n";
  if (s.groups.empty()) return out + "No findings.\n\n";
  out += p.wrap("Findings by cause", "1") + "\n\n";
  const std::size_t total = static_cast<std::size_t>(fl.size);
  // Each group's first finding and every member's line ("[node] message"), in one pass over the
  // findings in report order.
  std::vector<std::size_t> group_at(finding_count(r.evaluation), s.groups.size());
  for (std::size_t k = 0; k < s.groups.size(); ++k)
    for (std::size_t i : s.groups[k].findings) group_at[i] = k;
  std::vector<Finding> firsts(s.groups.size());
  std::vector<std::vector<Evidence>> lines(s.groups.size());
  std::size_t at = 0;
  for_each_finding(r.evaluation, [&](const Finding& f) {
    const std::size_t k = group_at[at++];
    if (k >= s.groups.size()) return;
    if (s.groups[k].findings.front() == at - 1) firsts[k] = f;
    if (s.groups[k].findings.size() > 1)
      lines[k].push_back({(f.node.empty() ? "" : "[" + f.node + "] ") + f.message, {}});
  });
  for (std::size_t k = 0; k < s.groups.size(); ++k) {
    const FleetCauseGroup& g = s.groups[k];
    const Finding& first = firsts[k];
    std::string where = g.nodes.empty()
                            ? "the cluster"
                            : std::to_string(g.nodes.size()) + " of " + std::to_string(total) +
                                  " node" + (total == 1 ? "" : "s") + ": " + list(g.nodes, 8);
    // One block per cause: the first finding's text, every node's own message as evidence.
    Finding shown = first;
    shown.severity = g.severity;
    if (g.findings.size() > 1) {
      shown.message = g.title + " (" + where + ")";
      shown.evidence = std::move(lines[k]);
    }
    out += render_finding(shown, p, g.findings.size() > 1 ? "" : "  [" + where + "]");
  }
  return out;
}

}  // namespace trainready
