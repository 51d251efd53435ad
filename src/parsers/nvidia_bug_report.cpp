#include "parsers/nvidia_bug_report.h"

#include "core/input_error.h"
#include "core/text.h"
#include "core/utf8.h"
#include "parsers/kernel_log.h"
#include "parsers/lspci.h"
#include "parsers/nvidia_smi_query.h"

namespace trainready {
namespace {

constexpr std::string_view kRule = "____________________________________________";  // 44 '_'

bool is_rule(std::string_view line) {
  line = trim(line);
  return line.size() >= kRule.size() && line.find_first_not_of('_') == std::string_view::npos;
}

// The section's lines [first, last] of the whole log, with the lines before blanked so that the
// parsers name the line of the log.
std::string section_text(const std::vector<std::string_view>& lines, int first, int last) {
  std::string out(static_cast<std::size_t>(first - 1), '\n');
  for (int i = first; i <= last; ++i) {
    out += lines[static_cast<std::size_t>(i - 1)];
    out += '\n';
  }
  return out;
}

}  // namespace

bool looks_like_nvidia_bug_report(std::string_view text) {
  const std::string_view head = text.substr(0, 4096);
  for (std::string_view line : split_lines(head)) {
    if (trim(line).empty()) continue;
    return is_rule(line) && (head.find("NVIDIA bug report log file") != std::string_view::npos ||
                             head.find("nvidia-bug-report.sh") != std::string_view::npos);
  }
  return false;
}

BugReport apply_nvidia_bug_report(NodeFacts& node, std::string_view text,
                                  const std::string& source) {
  BugReport report;
  const std::vector<std::string_view> lines = split_lines(text);
  const int n = static_cast<int>(lines.size());
  for (int i = 1; i <= n; ++i) {
    if (!is_rule(lines[static_cast<std::size_t>(i - 1)])) continue;
    int h = i + 1;
    while (h <= n && trim(lines[static_cast<std::size_t>(h - 1)]).empty()) ++h;
    if (h > n) break;
    int end = h;
    while (end < n && !is_rule(lines[static_cast<std::size_t>(end)])) ++end;
    BugReportSection s;
    s.header = std::string(trim(lines[static_cast<std::size_t>(h - 1)]));
    s.first_line = h;
    s.last_line = end;
    report.sections.push_back(std::move(s));
    i = end;
  }
  if (report.sections.empty())
    throw InputError(source, 1,
                     "expected an nvidia-bug-report.log: sections opened by a line of '_' "
                     "(gunzip nvidia-bug-report.log.gz first)");

  BugReportSection* smi = nullptr;
  BugReportSection* dmesg = nullptr;
  BugReportSection* scan = nullptr;
  BugReportSection* lspci_v = nullptr;
  BugReportSection* lspci_nn = nullptr;
  for (auto& s : report.sections) {
    const std::string_view h = s.header;
    if (h.find("nvidia-smi") != std::string_view::npos &&
        (h.find("--query") != std::string_view::npos || h.find(" -q") != std::string_view::npos) &&
        h.find("--unit") == std::string_view::npos && smi == nullptr)
      smi = &s;
    else if (h == "dmesg:" && dmesg == nullptr)
      dmesg = &s;
    else if (h.rfind("Scanning kernel log files", 0) == 0 && scan == nullptr)
      scan = &s;
    else if (h.find("lspci") != std::string_view::npos &&
             h.find("10de") != std::string_view::npos && h.find(" -v") != std::string_view::npos &&
             lspci_v == nullptr)
      lspci_v = &s;
    else if (h.find("lspci") != std::string_view::npos &&
             h.find(" -nn") != std::string_view::npos && lspci_nn == nullptr)
      lspci_nn = &s;
  }
  auto text_of = [&](const BugReportSection& s) {
    return section_text(lines, s.first_line + 1, s.last_line);
  };
  if (smi != nullptr) {
    try {
      node.gpus = Fact<GpuFacts>::present(parse_nvidia_smi_query(text_of(*smi), source),
                                          {source, smi->first_line});
      smi->used_as = "nvidia-smi -q";
    } catch (const InputError& e) {
      report.notes.push_back(std::string("nvidia-smi section not read: ") + e.what());
    }
  }
  if (BugReportSection* k = dmesg != nullptr ? dmesg : scan; k != nullptr) {
    try {
      node.kernel_log = Fact<KernelLogFacts>::present(parse_kernel_log(text_of(*k), source),
                                                      {source, k->first_line});
      k->used_as = "kernel log";
    } catch (const InputError& e) {
      report.notes.push_back(std::string("kernel log section not read: ") + e.what());
    }
  }
  for (BugReportSection* l : {lspci_v, lspci_nn}) {
    if (l == nullptr) continue;
    try {
      node.pci = Fact<PciFacts>::present(parse_lspci(text_of(*l), source), {source, l->first_line});
      l->used_as = "lspci";
      break;
    } catch (const InputError& e) {
      report.notes.push_back(std::string("lspci section not read: ") + e.what());
    }
  }
  return report;
}

}  // namespace trainready
