#include "report/text_reporter.h"

#include <algorithm>

#include "core/text.h"
#include "report/node_summary.h"
#include "report/run_summary.h"
#include "report/text_format.h"

namespace trainready {

std::string render_text(const DoctorReport& r, bool color) {
  Palette p{color};
  std::string out;
  const char* vcolor = r.verdict.status == VerdictStatus::kNotReady ? "1;31"
                       : r.verdict.status == VerdictStatus::kReady  ? "1;32"
                                                                    : "1;33";
  out += p.wrap(r.verdict.line, vcolor) + "\n\n";
  for (const NodeFacts& n : r.nodes) {
    out += p.wrap("Node " + n.label, "1") + (n.live ? "  (live)" : "  (" + n.root_display + ")") +
           "\n";
    for (const auto& [label, text] : summarize_node(n)) {
      std::string head = "  " + label + std::string(label.size() < 11 ? 11 - label.size() : 1, ' ');
      out += head + wrap_text(text, head.size(), head.size()) + "\n";
    }
    out += "\n";
  }
  auto section = [&](const std::string& title, const SummaryLines& lines) {
    out += p.wrap(title, "1") + "\n";
    for (const auto& [label, text] : lines) {
      std::string head = "  " + label + std::string(label.size() < 11 ? 11 - label.size() : 1, ' ');
      out += head + wrap_text(text, head.size(), head.size()) + "\n";
    }
    out += "\n";
  };
  if (r.nccl_log) section("NCCL log", summarize_nccl_log(*r.nccl_log));
  if (r.nccl_tests)
    section("nccl-tests " + r.nccl_tests->source,
            summarize_nccl_tests(*r.nccl_tests, r.busbw_expected ? &*r.busbw_expected : nullptr));
  if (r.evaluation.findings.empty()) {
    out += "No findings.\n";
  }
  for (const Finding& f : r.evaluation.findings) {
    out += render_finding(f, p, !f.node.empty() && r.nodes.size() > 1 ? "  [" + f.node + "]" : "");
  }
  if (!r.evaluation.skipped.empty() || !r.evaluation.notes.empty()) {
    out += p.wrap("Not checked", "1") + "\n";
    // Rules skipped for the same reason on the same node read as one line.
    std::vector<std::pair<std::string, std::string>> grouped;  // (reason key, ids)
    for (const RuleSkip& s : r.evaluation.skipped) {
      std::string key =
          (s.node.empty() || r.nodes.size() < 2 ? "" : "[" + s.node + "] ") + s.reason;
      auto it = std::find_if(grouped.begin(), grouped.end(),
                             [&](const auto& g) { return g.first == key; });
      if (it == grouped.end())
        grouped.emplace_back(key, s.rule_id);
      else
        it->second += ", " + s.rule_id;
    }
    for (const auto& [key, ids] : grouped) {
      out += "  " + wrap_text(ids + ": skipped, " + key, 2, 6) + "\n";
    }
    for (const RuleSkip& s : r.evaluation.notes) {
      std::string head = "  " + s.rule_id +
                         (s.node.empty() || r.nodes.size() < 2 ? "" : " [" + s.node + "]") + ": ";
      out += head + wrap_text("partly, " + s.reason, head.size(), 6) + "\n";
    }
    out += "\n";
  }
  out += "catalog " + r.catalog_origin + " · trainready " + r.tool_version + " · " +
         std::to_string(r.evaluation.evaluations) + " rule evaluations · exit " +
         std::to_string(r.exit_code) + " (--fail-on " + std::string(to_string(r.fail_on)) + ")\n";
  return out;
}

}  // namespace trainready
