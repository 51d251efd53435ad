#include "report/text/text_reporter.h"

#include <algorithm>
#include <unordered_map>

#include "core/text.h"
#include "engine/shared_findings.h"
#include "report/node_count.h"
#include "report/text/collective_table.h"
#include "report/text/fleet_section.h"
#include "report/text/node_summary.h"
#include "report/text/pair_bandwidth_text.h"
#include "report/text/plan_check_section.h"
#include "report/text/plan_section.h"
#include "report/text/run_summary.h"
#include "report/text/stage_section.h"
#include "report/text/storage_section.h"
#include "report/text/text_format.h"
#include "report/text/watch_section.h"

namespace trainready {
namespace {

void labelled(std::string& out, const Palette& p, const std::string& title,
              const SummaryLines& lines) {
  out += p.wrap(title, "1") + "\n";
  for (const auto& [label, text] : lines) {
    std::string head = "  " + label + std::string(label.size() < 11 ? 11 - label.size() : 1, ' ');
    out += head + wrap_text(text, head.size(), head.size()) + "\n";
  }
  out += "\n";
}

// Where a finding is: the node among several, or the file:line and resource of a template.
std::string finding_suffix(const Report& r, const Finding& f) {
  if (r.lint) return "  " + f.location.str() + "  " + f.resource;
  return !f.node.empty() && judged_node_count(r) > 1 ? "  [" + f.node + "]" : "";
}

void lint_sections(std::string& out, const Palette& p, const LintInputs& l) {
  if (!l.input_errors.empty()) {
    out += p.wrap("Not read (" + std::to_string(l.input_errors.size()) + ")", "1") + "\n";
    for (const auto& e : l.input_errors) out += "  " + wrap_text(e.message, 2, 6) + "\n";
    out += "\n";
  }
  if (!l.suppressed.empty()) {
    out += p.wrap("Suppressed (" + std::to_string(l.suppressed.size()) + ")", "1") + "\n";
    for (const auto& s : l.suppressed) {
      std::string line = s.finding.rule_id + " on " + s.finding.resource + " (" +
                         s.finding.location.str() +
                         "): " + (s.justification.empty() ? "no justification" : s.justification) +
                         " [" + s.kind + " " + s.where.str() + "]";
      out += "  " + wrap_text(line, 2, 6) + "\n";
    }
    out += "\n";
  }
  if (!l.suppression_warnings.empty()) {
    out += p.wrap("Suppression warnings", "1") + "\n";
    for (const auto& w : l.suppression_warnings) out += "  " + wrap_text(w, 2, 6) + "\n";
    out += "\n";
  }
}

void not_checked(std::string& out, const Palette& p, const Report& r) {
  const Evaluation& ev = r.evaluation;
  const bool inputs = r.lint && !r.lint->input_notes.empty();
  if (skip_count(ev) == 0 && note_count(ev) == 0 && !inputs) return;
  out += p.wrap(r.lint ? "Not resolved" : "Not checked", "1") + "\n";
  if (inputs) {
    for (const auto& n : r.lint->input_notes) out += "  " + wrap_text(n, 2, 6) + "\n";
  }
  // Rules skipped for the same reason on the same node read as one line (found by key: a fleet
  // has a line per node).
  std::vector<std::pair<const std::string*, std::string>> grouped;  // (reason key, ids)
  std::unordered_map<std::string, std::size_t> line_of;             // reason key -> grouped entry
  const bool many = judged_node_count(r) >= 2;
  for_each_skip(ev, [&](const RuleSkip& s) {
    auto [it, fresh] = line_of.emplace(
        (s.node.empty() || !many ? "" : "[" + s.node + "] ") + s.reason, grouped.size());
    if (fresh)
      grouped.emplace_back(&it->first, s.rule_id);
    else
      grouped[it->second].second += ", " + s.rule_id;
  });
  for (const auto& [key, ids] : grouped)
    out += "  " + wrap_text(ids + ": skipped, " + *key, 2, 6) + "\n";
  for_each_note(ev, [&](const RuleSkip& s) {
    std::string head = "  " + s.rule_id +
                       (s.node.empty() || judged_node_count(r) < 2 ? "" : " [" + s.node + "]") +
                       ": ";
    out += head + wrap_text("partly, " + s.reason, head.size(), 6) + "\n";
  });
  out += "\n";
}

}  // namespace

std::string render_text(const Report& r, const RenderStyle& style) {
  const Palette p{style.color};
  std::string out;
  // watch answers in a sentence ("GPUs were busy 61 % of the time; ..."): it leads, the verdict
  // and the findings behind it follow.
  if (r.watch) out += render_watch_text(*r.watch) + "\n";
  const char* vcolor = r.verdict.status == VerdictStatus::kNotReady ? "1;31"
                       : r.verdict.status == VerdictStatus::kReady  ? "1;32"
                                                                    : "1;33";
  out += p.wrap(r.verdict.line, vcolor) + "\n\n";
  // A fleet has a row per node instead of a block per node, and its findings grouped by cause.
  if (r.fleet_summary) out += render_fleet_text(r, p);
  for (const NodeFacts& n : r.nodes) {
    if (r.fleet_summary) break;
    labelled(out, p, "Node " + n.label + (n.live ? "  (live)" : "  (" + n.root_display + ")"),
             summarize_node(n, r.options));
  }
  if (r.nccl_log) labelled(out, p, "NCCL log", summarize_nccl_log(*r.nccl_log));
  if (r.progress) labelled(out, p, "NCCL telemetry", summarize_nccl_telemetry(*r.progress));
  if (r.collective)
    out += render_collective_table(r.collective->result, r.collective->options) + "\n";
  if (r.nccl_tests && !r.collective) {
    SummaryLines t =
        summarize_nccl_tests(*r.nccl_tests, r.busbw_expected ? &*r.busbw_expected : nullptr);
    if (r.busbw_from_log)
      for (const auto& l : r.busbw_from_log->lines) t.emplace_back("from log", l);
    labelled(out, p, "nccl-tests " + r.nccl_tests->source, t);
  }
  if (r.nccl_tests && r.collective)
    labelled(out, p, "Bus bandwidth",
             summarize_nccl_tests(*r.nccl_tests, r.busbw_expected ? &*r.busbw_expected : nullptr));
  if (r.storage) out += render_storage_text(*r.storage) + "\n";
  if (r.pairs) out += render_pair_bandwidth_text(*r.pairs) + "\n";
  if (r.stage) out += render_stage_text(*r.stage) + "\n";
  if (r.plan) out += render_plan_text(*r.plan, style.explain, p) + "\n";
  if (r.acceptance) out += render_plan_check_text(*r.acceptance, style.explain, p) + "\n";
  if (finding_count(r.evaluation) == 0 && !r.fleet_summary) out += "No findings.\n\n";
  if (!r.fleet_summary)
    for_each_finding(r.evaluation,
                     [&](const Finding& f) { out += render_finding(f, p, finding_suffix(r, f)); });
  if (r.lint) lint_sections(out, p, *r.lint);
  not_checked(out, p, r);
  out += (r.catalog_origin.empty() ? "" : "catalog " + r.catalog_origin + " · ") + "trainready " +
         r.tool_version + " · " + std::to_string(r.evaluation.evaluations) +
         " rule evaluations · exit " + std::to_string(r.exit_code) + " (--fail-on " +
         std::string(to_string(r.fail_on)) + ")\n";
  // One pass over everything, so no input text reaches the terminal unescaped.
  return terminal_safe(out, style.color);
}

}  // namespace trainready
