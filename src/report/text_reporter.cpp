#include "report/text_reporter.h"

#include <algorithm>

#include "core/text.h"
#include "report/node_summary.h"
#include "report/run_summary.h"

namespace trainready {
namespace {

constexpr std::size_t kWidth = 100;

struct Palette {
  bool on;
  std::string wrap(const std::string& s, const char* code) const {
    return on ? std::string("\x1b[") + code + "m" + s + "\x1b[0m" : s;
  }
};

const char* severity_color(Severity s) {
  switch (s) {
    case Severity::kError:
      return "1;31";
    case Severity::kWarning:
      return "1;33";
    case Severity::kInfo:
      return "1;36";
  }
  return "0";
}

// Word-wraps `text` to kWidth with `indent` spaces before every continuation line.
std::string wrap(const std::string& text, std::size_t first_col, std::size_t indent) {
  std::string out;
  std::size_t col = first_col;
  for (std::string_view word : split_ws(text)) {
    if (col > indent && col + 1 + word.size() > kWidth) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
    } else if (col > first_col || (col > indent && !out.empty())) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
  }
  return out;
}

std::string upper(Severity s) {
  std::string r(to_string(s));
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

}  // namespace

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
      out += head + wrap(text, head.size(), head.size()) + "\n";
    }
    out += "\n";
  }
  auto section = [&](const std::string& title, const SummaryLines& lines) {
    out += p.wrap(title, "1") + "\n";
    for (const auto& [label, text] : lines) {
      std::string head = "  " + label + std::string(label.size() < 11 ? 11 - label.size() : 1, ' ');
      out += head + wrap(text, head.size(), head.size()) + "\n";
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
    std::string head = upper(f.severity);
    out += p.wrap(head, severity_color(f.severity)) + std::string(8 - head.size(), ' ') +
           p.wrap(f.rule_id, "1");
    if (!f.node.empty() && r.nodes.size() > 1) out += "  [" + f.node + "]";
    out += "\n        " + wrap(f.message, 8, 8) + "\n";
    for (const Evidence& e : f.evidence) {
      std::string line = e.text + (e.where.source.empty() ? "" : "  (" + e.where.str() + ")");
      out += "        evidence  " + wrap(line, 18, 18) + "\n";
    }
    if (!f.cause.empty()) out += "        cause     " + wrap(f.cause, 18, 18) + "\n";
    if (!f.fix.empty()) out += "        fix       " + wrap(f.fix, 18, 18) + "\n";
    out += "        more      trainready explain " + f.rule_id + "\n\n";
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
      out += "  " + wrap(ids + ": skipped, " + key, 2, 6) + "\n";
    }
    for (const RuleSkip& s : r.evaluation.notes) {
      std::string head = "  " + s.rule_id +
                         (s.node.empty() || r.nodes.size() < 2 ? "" : " [" + s.node + "]") + ": ";
      out += head + wrap("partly, " + s.reason, head.size(), 6) + "\n";
    }
    out += "\n";
  }
  out += "catalog " + r.catalog_origin + " · trainready " + r.tool_version + " · " +
         std::to_string(r.evaluation.evaluations) + " rule evaluations · exit " +
         std::to_string(r.exit_code) + " (--fail-on " + std::string(to_string(r.fail_on)) + ")\n";
  return out;
}

}  // namespace trainready
