#include "report/html/fleet_table.h"

#include "report/markup_escape.h"
#include "report/rule_doc.h"

namespace trainready {
namespace {

std::string esc(std::string_view s) { return escape_markup(s); }

const char* row_class(const std::string& verdict) {
  if (verdict == "ready") return "ready";
  if (verdict == "warnings") return "warning";
  return "error";
}

const char* verdict_text(const std::string& verdict) {
  if (verdict == "ready") return "ready";
  if (verdict == "warnings") return "warnings";
  if (verdict == "not_ready") return "not ready";
  return "no facts";
}

}  // namespace

std::string fleet_html_section(const Report& r) {
  if (!r.fleet || !r.fleet_summary) return "";
  const FleetFacts& fl = *r.fleet;
  const FleetSummary& s = *r.fleet_summary;
  std::string h = "<section id=\"fleet\"><h2>Nodes of the cluster</h2><p class=\"meta\">" +
                  std::to_string(fl.size) + " ranks, launcher " + esc(fl.launcher) + "; " +
                  std::to_string(s.ready) + " ready, " + std::to_string(s.warnings) +
                  " with warnings, " + std::to_string(s.not_ready) + " not ready, " +
                  std::to_string(s.no_facts) + " without facts</p>";
  h += "<table class=\"fleet-nodes\"><thead><tr><th>rank</th><th>node</th><th>host</th>"
       "<th>verdict</th><th>findings</th></tr></thead><tbody>";
  for (const FleetNodeRow& x : s.rows) {
    std::string rules;
    for (const std::string& id : x.rules)
      rules += (rules.empty() ? "" : " ") + std::string("<a href=\"") + esc(rule_doc_url(id)) +
               "\"><code>" + esc(id) + "</code></a>";
    h += "<tr class=\"" + std::string(row_class(x.verdict)) + "\"><td>" + std::to_string(x.rank) +
         "</td><th>" + esc(x.node) + "</th><td>" + esc(x.host) + "</td><td><span class=\"badge\">" +
         verdict_text(x.verdict) + "</span></td><td>" +
         (rules.empty() ? std::string("&ndash;") : rules) + "</td></tr>";
  }
  h += "</tbody></table>";
  if (!s.groups.empty()) {
    h += "<h3>Findings by cause</h3><ul class=\"fleet-causes\">";
    for (const FleetCauseGroup& g : s.groups) {
      std::string who;
      for (std::size_t i = 0; i < g.nodes.size() && i < 12; ++i)
        who += (i ? ", " : "") + esc(g.nodes[i]);
      if (g.nodes.size() > 12) who += ", and " + std::to_string(g.nodes.size() - 12) + " more";
      h += "<li class=\"" + std::string(to_string(g.severity)) + "\"><span class=\"badge\">" +
           esc(std::string(to_string(g.severity))) + "</span> <a href=\"" +
           esc(rule_doc_url(g.rule_id)) + "\"><code>" + esc(g.rule_id) + "</code></a> " +
           esc(g.title) + " &mdash; " +
           (g.nodes.empty() ? std::string("the cluster")
                            : std::to_string(g.nodes.size()) + " of " + std::to_string(fl.size) +
                                  " nodes: " + who) +
           "</li>";
    }
    h += "</ul>";
  }
  return h + "</section>\n";
}

}  // namespace trainready
