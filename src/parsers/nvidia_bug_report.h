#pragma once
// nvidia-bug-report.log (nvidia-bug-report.sh, NVIDIA's driver package): command outputs and
// files concatenated, each section opened by a line of 44 '_' and a header line ("*** /proc/
// cmdline", "/usr/bin/nvidia-smi --query", "dmesg:", "/usr/bin/lspci -nn", ...). The sections
// this tool reads are handed to their parsers, with line numbers of the whole log.
#include <string>
#include <string_view>
#include <vector>

#include "facts/node_facts.h"

namespace trainready {

struct BugReportSection {
  std::string header;  // the section's first non-blank line, as printed
  int first_line = 0;  // of the header
  int last_line = 0;
  std::string used_as;  // "nvidia-smi -q", "dmesg", "lspci"; empty when not read
};

struct BugReport {
  std::vector<BugReportSection> sections;
  std::vector<std::string> notes;  // sections that looked readable but did not parse, and why
};

bool looks_like_nvidia_bug_report(std::string_view text);

// Splits the log and fills node.gpus (nvidia-smi --query), node.kernel_log (the dmesg section,
// else the "Scanning kernel log files" one) and node.pci (lspci) where the log has them. Throws
// InputError when the text has no bug-report section at all.
BugReport apply_nvidia_bug_report(NodeFacts& node, std::string_view text,
                                  const std::string& source);

}  // namespace trainready
