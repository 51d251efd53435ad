// The kernel log, for the NVIDIA driver's Xid lines: a snapshot's recorded NVRM lines or its
// `dmesg` output, else /var/log/kern.log (Debian, Ubuntu) or /var/log/messages (RHEL family).
// Reading them usually needs root or the adm group: unreadable is a fact with the reason, and the
// rule that needs it says it skipped.
#include <vector>

#include "core/input_error.h"
#include "parsers/kernel_log.h"
#include "probes/probes.h"

namespace trainready {
namespace {

// kern.log rotates weekly on Ubuntu; a busy node's week stays well below this.
constexpr std::size_t kKernelLogLimit = std::size_t{64} * 1024 * 1024;

}  // namespace

Fact<KernelLogFacts> probe_kernel_log(const Root& root) {
  std::vector<std::string> paths;
  if (!root.is_live()) {
    paths.emplace_back(kSnapKernelLog);
    paths.emplace_back(kSnapCommands);
    paths.back() += "/dmesg.txt";
  }
  for (const char* p : kKernelLogFiles) paths.emplace_back(p);
  std::string unreadable;
  Provenance unreadable_where;
  for (const std::string& path : paths) {
    FileRead r = root.read_file(path, kKernelLogLimit);
    Provenance where{root.display(path), 0};
    if (r.status == ReadStatus::kMissing) continue;
    if (r.status == ReadStatus::kUnreadable) {
      if (unreadable.empty()) {
        unreadable = r.error;
        unreadable_where = where;
      }
      continue;
    }
    try {
      return Fact<KernelLogFacts>::present(parse_kernel_log(r.data, where.source), where);
    } catch (const InputError& e) {
      if (unreadable.empty()) {
        unreadable = e.what();
        unreadable_where = where;
      }
    }
  }
  const std::string how =
      "; run as root (or in group adm), or pass `journalctl -k` / `dmesg -T` output as "
      "--capture kernel-log=FILE";
  if (!unreadable.empty())
    return Fact<KernelLogFacts>::unreadable(unreadable + how, unreadable_where);
  return Fact<KernelLogFacts>::missing(
      "no kernel log file (/var/log/kern.log, /var/log/messages); the journal is not read" + how);
}

}  // namespace trainready
