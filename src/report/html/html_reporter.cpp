#include "report/html/html_reporter.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

#include "engine/shared_findings.h"
#include "report/html/fleet_table.h"
#include "report/html/html_charts.h"
#include "report/html/html_format.h"
#include "report/html/html_style.h"
#include "report/html/pair_heatmap.h"
#include "report/markup_escape.h"
#include "report/rule_doc.h"
#include "report/text/node_summary.h"
#include "rules/registry.h"

namespace trainready {
namespace {

std::string esc(std::string_view s) { return escape_markup(s); }

std::string rule_link(const std::string& id) {
  return "<a href=\"" + esc(rule_doc_url(id)) + "\"><code>" + esc(id) + "</code></a>";
}

const char* verdict_class(VerdictStatus s) {
  switch (s) {
    case VerdictStatus::kReady:
      return "ready";
    case VerdictStatus::kReadyWithWarnings:
      return "warnings";
    case VerdictStatus::kIncomplete:
      return "incomplete";
    case VerdictStatus::kNotReady:
      return "not-ready";
  }
  return "incomplete";
}

std::string header(const Report& r) {
  std::string h = "<header><h1>trainready " + esc(r.command) + "</h1><div class=\"meta\">";
  if (!r.tool_version.empty()) h += "trainready " + esc(r.tool_version);
  if (!r.catalog_origin.empty()) h += " &middot; catalog " + esc(r.catalog_origin);
  h += " &middot; fails on " + esc(to_string(r.fail_on)) + " &middot; exit code " +
       std::to_string(r.exit_code) + "</div>";
  std::string status = verdict_status_name(r.verdict.status, r.command);
  for (char& c : status)
    if (c == '_') c = ' ';
  // The verdict line starts with its word ("NOT READY: ..."): that word goes in the coloured
  // badge, once; a line without one gets the status name.
  std::string rest = r.verdict.line;
  if (const std::size_t colon = rest.find(':'); colon != std::string::npos && colon > 0) {
    const std::string word = rest.substr(0, colon);
    const auto upper = [](char c) {
      return std::isupper(static_cast<unsigned char>(c)) || c == ' ';
    };
    if (std::all_of(word.begin(), word.end(), upper)) {
      status = word;
      rest = rest.substr(colon + 1);
      while (!rest.empty() && rest.front() == ' ') rest.erase(0, 1);
    }
  }
  h += "<div class=\"verdict " + std::string(verdict_class(r.verdict.status)) +
       "\" role=\"status\"><span class=\"status\">" + esc(status) + "</span>" + esc(rest) +
       "</div>";
  std::size_t n[3] = {0, 0, 0};
  for_each_finding(r.evaluation, [&](const Finding& f) { ++n[static_cast<int>(f.severity)]; });
  const auto count = [](std::size_t v, const char* what) {
    return "<li><b>" + std::to_string(v) + "</b>" + what + "</li>";
  };
  h += "<ul class=\"counts\">" + count(n[2], n[2] == 1 ? "error" : "errors") +
       count(n[1], n[1] == 1 ? "warning" : "warnings") + count(n[0], "info") +
       count(static_cast<std::size_t>(r.evaluation.evaluations), "rule evaluations") +
       count(skip_count(r.evaluation), "checks skipped");
  if (const std::size_t partly = partly_evaluated(r.evaluation))
    h += count(partly, "checks skipped in part");
  if (r.lint) h += count(r.lint->suppressed.size(), "suppressed");
  h += "</ul></header>\n";
  return h;
}

std::string evidence_item(const Evidence& e) {
  std::string s = "<li>" + esc(e.text);
  if (!e.where.source.empty()) s += " <code>" + esc(e.where.str()) + "</code>";
  return s + "</li>";
}

std::string finding_html(const Finding& f) {
  const std::string sev(to_string(f.severity));
  const Rule* rule = find_rule(f.rule_id);
  std::string s = "<article class=\"finding " + esc(sev) + "\"><h3><span class=\"badge\">" +
                  esc(sev) + "</span> " + rule_link(f.rule_id);
  if (rule) s += " <span class=\"title\">" + esc(rule->title()) + "</span>";
  if (!f.node.empty()) s += " on <b>" + esc(f.node) + "</b>";
  s += "</h3><p>" + esc(f.message) + "</p><dl class=\"parts\">";
  if (!f.resource.empty() || !f.location.source.empty()) {
    s += "<dt>location</dt><dd>" + esc(f.resource);
    if (!f.location.source.empty()) s += " <code>" + esc(f.location.str()) + "</code>";
    s += "</dd>";
  }
  if (!f.evidence.empty()) {
    s += "<dt>evidence</dt><dd><ul>";
    for (const Evidence& e : f.evidence) s += evidence_item(e);
    s += "</ul></dd>";
  }
  if (!f.cause.empty()) s += "<dt>cause</dt><dd>" + esc(f.cause) + "</dd>";
  if (!f.fix.empty()) s += "<dt>fix</dt><dd>" + esc(f.fix) + "</dd>";
  return s + "</dl></article>\n";
}

std::string findings_section(const Report& r) {
  std::string s = "<section id=\"findings\"><h2>Findings</h2>";
  if (finding_count(r.evaluation) == 0) s += "<p class=\"empty\">No findings.</p>";
  const std::pair<Severity, const char*> groups[] = {
      {Severity::kError, "Errors"}, {Severity::kWarning, "Warnings"}, {Severity::kInfo, "Info"}};
  for (const auto& group : groups) {
    const Severity sev = group.first;  // a structured binding is not captured by clang < 16
    const char* name = group.second;
    std::string items;
    std::size_t n = 0;
    for_each_finding(r.evaluation, [&](const Finding& f) {
      if (f.severity != sev) return;
      items += finding_html(f);
      ++n;
    });
    if (n) s += "<h3>" + std::string(name) + " (" + std::to_string(n) + ")</h3>" + items;
  }
  return s + "</section>\n";
}

std::string not_checked_section(const Report& r) {
  const Evaluation& ev = r.evaluation;
  const bool lint_notes =
      r.lint && (!r.lint->input_notes.empty() || !r.lint->suppression_warnings.empty());
  if (skip_count(ev) == 0 && note_count(ev) == 0 && !lint_notes) return "";
  std::string s =
      "<section id=\"not-checked\"><h2>Not checked</h2>"
      "<p>A missing fact is not a pass: these checks could not run, or ran only "
      "in part.</p>";
  const auto table = [&ev](bool skips, const char* what) {
    std::string t = "<table><thead><tr><th>rule</th><th>node</th><th>" + std::string(what) +
                    "</th></tr></thead><tbody>";
    const auto row = [&t](const RuleSkip& k) {
      t += "<tr><td>" + rule_link(k.rule_id) + "</td><td>" + esc(k.node) + "</td><td>" +
           esc(k.reason) + "</td></tr>";
    };
    if (skips)
      for_each_skip(ev, row);
    else
      for_each_note(ev, row);
    return t + "</tbody></table>";
  };
  if (skip_count(ev) > 0) s += "<h3>Skipped</h3>" + table(true, "why");
  if (note_count(ev) > 0) s += "<h3>Evaluated in part</h3>" + table(false, "what was left out");
  if (lint_notes) {
    s += "<h3>Inputs</h3><ul>";
    for (const std::string& n : r.lint->input_notes) s += "<li>" + esc(n) + "</li>";
    for (const std::string& n : r.lint->suppression_warnings) s += "<li>" + esc(n) + "</li>";
    s += "</ul>";
  }
  return s + "</section>\n";
}

// One row per node, one column per summary label (in the order the summary gives them).
std::string nodes_section(const Report& r) {
  if (r.nodes.empty() || r.fleet) return "";  // a fleet has its own node table
  std::vector<std::string> columns;
  std::vector<std::map<std::string, std::string>> rows;
  for (const NodeFacts& n : r.nodes) {
    std::map<std::string, std::string> row;
    for (const auto& [label, text] : summarize_node(n, r.options)) {
      if (std::find(columns.begin(), columns.end(), label) == columns.end())
        columns.push_back(label);
      row[label] = text;
    }
    rows.push_back(std::move(row));
  }
  std::string s = "<section id=\"nodes\"><h2>Nodes</h2><table><thead><tr><th>node</th>";
  for (const std::string& c : columns) s += "<th>" + esc(c) + "</th>";
  s += "</tr></thead><tbody>";
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    s += "<tr><th>" + esc(r.nodes[i].label) + "<div class=\"meta\">" +
         esc(r.nodes[i].root_display) + "</div></th>";
    for (const std::string& c : columns) {
      auto it = rows[i].find(c);
      s += "<td>" + (it == rows[i].end() ? std::string() : esc(it->second)) + "</td>";
    }
    s += "</tr>";
  }
  return s + "</tbody></table></section>\n";
}

std::string busbw_section(const Report& r) {
  const std::string chart = busbw_chart(r);
  if (chart.empty() && !r.nccl_tests && !r.collective) return "";
  std::string s = "<section id=\"busbw\"><h2>Bus bandwidth</h2><ul>";
  if (r.collective) {
    const HarnessResult& h = r.collective->result;
    s += "<li>" + esc(spec_of(r.collective->options.collective).name) + " over " +
         std::to_string(h.ranks) + " ranks, " + esc(h.backend) + " back end; #wrong " +
         (r.collective->options.check ? std::to_string(h.wrong) : std::string("not checked")) +
         "</li>";
  } else if (r.nccl_tests) {
    const NcclTestsFacts& t = *r.nccl_tests;
    s += "<li>" + esc(t.collective) + " from <code>" + esc(t.source) + "</code>";
    if (t.ranks() > 0)
      s += ": " + std::to_string(t.ranks()) + " ranks on " + std::to_string(t.nodes()) + " node(s)";
    s += "</li>";
    if (const NcclTestsRow* big = t.largest())
      s += "<li>busbw at the largest size (" + fmt_size_iec(static_cast<double>(big->size_bytes)) +
           "): " + fmt_number(*big->busbw(), 2) + " GB/s</li>";
  }
  if (r.busbw_expected) {
    const BusbwExpectation& e = *r.busbw_expected;
    if (e.known)
      s +=
          "<li>expected " + fmt_number(e.expected_gbytes, 1) + " GB/s: " + esc(e.formula) + "</li>";
    else
      s += "<li>expected busbw unknown: " + esc(e.why_unknown) + "</li>";
  }
  return s + "</ul>" + chart + "</section>\n";
}

std::string storage_section(const Report& r) {
  if (!r.storage && !r.storage_facts) return "";
  std::string s = "<section id=\"storage\"><h2>Storage</h2><ul>";
  if (r.storage) {
    const StorageRun& run = *r.storage;
    s += "<li>path <code>" + esc(run.info.path) + "</code>, " +
         std::to_string(run.info.files.size()) + " file(s)";
    if (!run.info.created.empty()) s += "; " + esc(run.info.created);
    s += "</li>";
    if (run.raw) {
      const RawReadResult& raw = *run.raw;
      s += "<li>raw reads: " + fmt_gbytes_per_s(raw.bw_bytes) + ", " + fmt_number(raw.iops, 0) +
           " IOPS, " + esc(raw.engine) + (raw.direct ? ", O_DIRECT" : ", buffered") + ", cache " +
           esc(raw.cache_state) + "</li>";
      for (const char* key : {"50.000000", "99.000000"}) {
        auto it = raw.clat.percentiles.find(key);
        if (it != raw.clat.percentiles.end())
          s += "<li>clat p" + std::string(key).substr(0, 2) + " " +
               fmt_number(static_cast<double>(it->second) / 1000.0, 0) + " &micro;s</li>";
      }
      if (!raw.engine_fallback.empty()) s += "<li>" + esc(raw.engine_fallback) + "</li>";
    }
    if (run.feed)
      s += "<li>feed: " + std::to_string(run.feed->largest_meeting) +
           " emulated accelerator(s) kept at the AU threshold</li>";
  }
  if (r.storage_facts && !r.storage_facts->accelerators_origin.empty())
    s += "<li>" + std::to_string(r.storage_facts->accelerators_needed) +
         " accelerator(s) to feed (" + esc(r.storage_facts->accelerators_origin) + ")</li>";
  return s + "</ul>" + storage_charts(r) + "</section>\n";
}

std::string plan_section(const Report& r) {
  if (!r.plan) return "";
  const Plan& p = *r.plan;
  std::string s = "<section id=\"plan\"><h2>Plan</h2>";
  if (!p.job.model.empty())
    s += "<p>Model <b>" + esc(p.job.model) + "</b>; " + esc(p.scale_origin) + "</p>";
  if (!p.reasons.empty()) {
    s += "<h3>" + std::string(p.recommended ? "Why this recommendation" : "Why nothing fits") +
         "</h3><ul>";
    for (const std::string& x : p.reasons) s += "<li>" + esc(x) + "</li>";
    s += "</ul>";
  }
  s += plan_charts(r);
  s += "<table><thead><tr><th>VM size</th><th>VMs</th><th>GPUs</th><th>ZeRO</th><th>fits</th>"
       "<th>step</th><th>GPU busy</th><th>waits on</th><th>cost per run</th></tr></thead><tbody>";
  for (const Candidate& c : p.candidates) {
    s += "<tr><td>" + esc(c.sku ? c.sku->name : "?") + "</td><td>" + std::to_string(c.vms) +
         "</td><td>" + std::to_string(c.gpus) + "</td><td>" + std::to_string(c.zero) + "</td><td>" +
         (c.fits() ? "yes" : "no") + "</td><td>" + fmt_seconds(c.step_seconds.value) + "</td><td>" +
         fmt_percent(c.utilization.value) + "</td><td>" + esc(c.dominant_wait) + "</td><td>" +
         (c.cost ? fmt_usd(c.cost->per_run.value) : std::string("no price")) + "</td></tr>";
  }
  s += "</tbody></table>";
  if (!p.layouts.empty()) {
    s += "<h3>Layouts</h3><p>" + esc(p.layout_search) +
         "</p><table><thead><tr><th>VM size</th><th>VMs</th><th>tp</th><th>pp</th><th>dp</th>"
         "<th>ZeRO</th><th>recompute</th><th>micro-batch</th><th>step</th><th>why not chosen"
         "</th></tr></thead><tbody>";
    for (const Candidate& c : p.layouts) {
      s += "<tr><td>" + esc(c.sku ? c.sku->name : "?") + "</td><td>" + std::to_string(c.vms) +
           "</td><td>" + std::to_string(c.layout.tp) + "</td><td>" + std::to_string(c.layout.pp) +
           "</td><td>" + std::to_string(c.dp) + "</td><td>" + std::to_string(c.zero) + "</td><td>" +
           esc(to_string(c.layout.recompute)) + "</td><td>" + std::to_string(c.layout.micro_batch) +
           "</td><td>" + fmt_seconds(c.step_seconds.value) + "</td><td>" + esc(c.why_not) +
           "</td></tr>";
    }
    s += "</tbody></table>";
  }
  const auto list = [&s](const char* title, const std::vector<std::string>& items) {
    if (items.empty()) return;
    s += "<h3>" + std::string(title) + "</h3><ul>";
    for (const std::string& x : items) s += "<li>" + esc(x) + "</li>";
    s += "</ul>";
  };
  list("Checks to run once deployed", p.checklist);
  list("What would fit", p.hints);
  return s + "</section>\n";
}

// `plan --check`: each assumption beside its measurement, then the plan against the cluster.
std::string plan_check_section(const Report& r) {
  if (!r.acceptance) return "";
  const PlanAcceptance& a = *r.acceptance;
  const PlannedRun& p = a.planned;
  std::string s = "<section id=\"plan-check\"><h2>Plan check</h2><p>" + std::to_string(p.vms) +
                  " &times; " + esc(p.sku) + " (" + std::to_string(p.gpus) + " GPUs) from " +
                  esc(p.file) +
                  "</p><table><thead><tr><th>assumption</th><th>assumed</th>"
                  "<th>measured</th><th>measured / assumed</th><th>step with it alone</th>"
                  "<th>measured by</th></tr></thead><tbody>";
  for (const AssumptionCheck& c : a.checks) {
    s += "<tr><td>" + esc(c.what) + "</td><td>" + fmt_gbytes_per_s(c.assumed.value) + "</td><td>" +
         fmt_gbytes_per_s(c.measured.value) + "</td><td>" + fmt_percent(c.ratio) + "</td><td>" +
         fmt_seconds(c.step_seconds) + "</td><td>" + esc(c.measured.source) + "</td></tr>";
  }
  s += "</tbody></table><table><thead><tr><th></th><th>step</th><th>run</th><th>cost per run"
       "</th></tr></thead><tbody><tr><td>planned</td><td>" +
       fmt_seconds(p.step_seconds) + "</td><td>" + fmt_seconds(p.run_seconds) + "</td><td>" +
       (p.cost_per_run ? fmt_usd(*p.cost_per_run) : std::string("no price")) +
       "</td></tr><tr><td>measured</td><td>" + fmt_seconds(a.step.step_seconds.value) +
       "</td><td>" + fmt_seconds(a.step.run_seconds.value) + "</td><td>" +
       (a.cost ? fmt_usd(a.cost->per_run.value) : std::string("no price")) +
       "</td></tr></tbody></table>";
  if (!a.notes.empty()) {
    s += "<ul>";
    for (const std::string& n : a.notes) s += "<li>" + esc(n) + "</li>";
    s += "</ul>";
  }
  return s + "</section>\n";
}

std::string lint_section(const Report& r) {
  if (!r.lint) return "";
  const LintInputs& l = *r.lint;
  std::string s =
      "<section id=\"lint\"><h2>Inputs</h2><table><thead><tr><th>file</th></tr>"
      "</thead><tbody>";
  for (const std::string& f : l.files) s += "<tr><td><code>" + esc(f) + "</code></td></tr>";
  s += "</tbody></table><p>" + std::to_string(l.resources) + " resource(s) read.</p>";
  if (!l.suppressed.empty()) {
    s += "<h3>Suppressed findings (" + std::to_string(l.suppressed.size()) +
         ")</h3><table><thead><tr><th>rule</th><th>resource</th><th>finding</th>"
         "<th>justification</th><th>suppressed by</th></tr></thead><tbody>";
    for (const SuppressedFinding& x : l.suppressed)
      s += "<tr><td>" + rule_link(x.finding.rule_id) + "</td><td>" + esc(x.finding.resource) +
           "</td><td>" + esc(x.finding.message) + "</td><td>" + esc(x.justification) + "</td><td>" +
           esc(x.kind) +
           (x.where.source.empty() ? "" : " <code>" + esc(x.where.str()) + "</code>") +
           "</td></tr>";
    s += "</tbody></table>";
  }
  return s + "</section>\n";
}

// watch: each node's summary and its time per label (the timeline itself is `watch --replay
// --html`'s page).
std::string watch_section(const Report& r) {
  if (!r.watch) return "";
  std::string s = "<section id=\"watch\"><h2>Where the time went</h2>";
  for (const WatchNodeFacts& n : r.watch->nodes) {
    s += "<h3>" + esc(n.node) + "</h3><p>" + esc(n.headline) + "</p>";
    s += "<table><thead><tr><th>label</th><th>intervals</th><th>seconds</th><th>share of "
         "time</th><th>counters</th></tr></thead><tbody>";
    for (const WatchLabelShare& l : n.labels) {
      if (l.intervals == 0) continue;
      char b[64];
      std::snprintf(b, sizeof b, "%.1f</td><td>%.0f %%", l.seconds, l.time_share * 100);
      s += "<tr><td>" + esc(l.label) + "</td><td>" + std::to_string(l.intervals) + "</td><td>" + b +
           "</td><td>" + esc(l.detail) + "</td></tr>";
    }
    s += "</tbody></table>";
    if (!n.unavailable.empty()) {
      s += "<ul>";
      for (const std::string& u : n.unavailable) s += "<li>unavailable: " + esc(u) + "</li>";
      s += "</ul>";
    }
  }
  return s + "</section>\n";
}

}  // namespace

std::string render_html(const Report& r) {
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; img-src data:\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<meta name=\"color-scheme\" content=\"light dark\">"
      "<title>trainready " +
      esc(r.command) + ": " + esc(r.verdict.line) + "</title><style>" + html_report_css() +
      "</style></head><body>\n";
  page += header(r);
  page += fleet_html_section(r);  // a fleet's node table comes first: which nodes to look at
  page += watch_section(r);
  page += findings_section(r);
  page += busbw_section(r);
  page += storage_section(r);
  if (r.pairs) page += pair_bandwidth_html(*r.pairs);
  page += plan_section(r);
  page += plan_check_section(r);
  page += nodes_section(r);
  page += lint_section(r);
  page += not_checked_section(r);
  page +=
      "<footer>Every rule has a page: <a "
      "href=\"https://github.com/trainready/trainready/tree/main/docs/rules\">docs/rules</a>. "
      "Written by trainready " +
      esc(r.tool_version) + ".</footer>\n</body></html>\n";
  return page;
}

}  // namespace trainready
