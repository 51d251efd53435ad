#include "report/lint_text_reporter.h"

#include "report/text_format.h"

namespace trainready {

std::string render_lint_text(const LintReport& r, bool color) {
  Palette p{color};
  std::string out;
  const char* vcolor = r.status == "problems" ? "1;31" : r.status == "clean" ? "1;32" : "1;33";
  out += p.wrap(r.verdict, vcolor) + "\n\n";
  if (r.evaluation.findings.empty()) out += "No findings.\n\n";
  for (const Finding& f : r.evaluation.findings) {
    out += render_finding(f, p, "  " + f.location.str() + "  " + f.resource);
  }
  if (!r.suppressed.empty()) {
    out += p.wrap("Suppressed (" + std::to_string(r.suppressed.size()) + ")", "1") + "\n";
    for (const auto& s : r.suppressed) {
      std::string line = s.finding.rule_id + " on " + s.finding.resource + " (" +
                         s.finding.location.str() +
                         "): " + (s.justification.empty() ? "no justification" : s.justification) +
                         " [" + s.kind + " " + s.where.str() + "]";
      out += "  " + wrap_text(line, 2, 6) + "\n";
    }
    out += "\n";
  }
  if (!r.warnings.empty()) {
    out += p.wrap("Suppression warnings", "1") + "\n";
    for (const auto& w : r.warnings) out += "  " + wrap_text(w, 2, 6) + "\n";
    out += "\n";
  }
  if (!r.input_notes.empty() || !r.evaluation.notes.empty() || !r.evaluation.skipped.empty()) {
    out += p.wrap("Not resolved", "1") + "\n";
    for (const auto& n : r.input_notes) out += "  " + wrap_text(n, 2, 6) + "\n";
    for (const auto& n : r.evaluation.notes)
      out += "  " + wrap_text(n.rule_id + ": " + n.reason, 2, 6) + "\n";
    for (const auto& s : r.evaluation.skipped)
      out += "  " + wrap_text(s.rule_id + ": skipped, " + s.reason, 2, 6) + "\n";
    out += "\n";
  }
  out += "trainready " + r.tool_version + " · " + std::to_string(r.evaluation.evaluations) +
         " rules · exit " + std::to_string(r.exit_code) + " (--fail-on " +
         std::string(to_string(r.fail_on)) + ")\n";
  return out;
}

}  // namespace trainready
