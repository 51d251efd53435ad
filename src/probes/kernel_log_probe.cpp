// The kernel log, for the NVIDIA driver's Xid lines: a snapshot's recorded NVRM lines or its
// `dmesg` output, else /var/log/kern.log (Debian, Ubuntu) or /var/log/messages (RHEL family).
// Reading them usually needs root or the adm group: unreadable is a fact with the reason, and the
// rule that needs it says it skipped.
#include <ctime>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "parsers/kernel_log.h"
#include "probes/probes.h"

namespace trainready {
namespace {

// kern.log rotates weekly on Ubuntu; a busy node's week stays well below this.
constexpr std::size_t kKernelLogLimit = std::size_t{64} * 1024 * 1024;

// What places the log's lines in time: the current boot (/proc/stat btime) and when the log was
// read (live: now; a snapshot: its manifest's collected_at). A live node's times without a zone
// are in its own zone (the one this process runs in); a snapshot's are read as UTC, the Azure
// images' default, since the snapshot keeps no zone.
KernelLogClock clock_of(const Root& root) {
  KernelLogClock c;
  std::string note;
  const FileRead st = root.read_file("/proc/stat", std::size_t{1} << 20);  // intr line: long
  if (st.status == ReadStatus::kOk) {
    if (auto b = parse_proc_stat_btime(st.data)) c.boot_time = *b;
  }
  if (c.boot_time == 0)
    note = "the boot time is unknown (" + root.display("/proc/stat") + " has no btime" +
           (st.status == ReadStatus::kOk || st.error.empty() ? std::string() : ": " + st.error) +
           ")";
  if (root.is_live()) {
    c.read_at = static_cast<std::int64_t>(std::time(nullptr));
    c.zone_is_utc = false;
  } else {
    c.zone_is_utc = true;
    const FileRead m = root.read_file(kSnapManifest);
    if (m.status == ReadStatus::kOk) {
      const nlohmann::json j = nlohmann::json::parse(m.data, nullptr, /*allow_exceptions=*/false);
      if (j.is_object() && j.contains("collected_at") && j["collected_at"].is_string())
        c.read_at = kernel_log_time(j["collected_at"].get<std::string>(), c);
    }
    note += std::string(note.empty() ? "" : "; ") +
            (c.read_at == 0 ? "the time the snapshot was taken is unknown (no collected_at in " +
                                  root.display(kSnapManifest) + ")"
                            : "a snapshot's times without a zone are read as UTC");
  }
  c.note = note;
  return c;
}

}  // namespace

Fact<KernelLogFacts> probe_kernel_log(const Root& root) {
  std::vector<std::string> paths;
  if (!root.is_live()) {
    paths.emplace_back(kSnapKernelLog);
    paths.emplace_back(kSnapCommands);
    paths.back() += "/dmesg.txt";
  }
  for (const char* p : kKernelLogFiles) paths.emplace_back(p);
  // Read first, whatever log is found: `collect` keeps what the probes read, so a snapshot
  // carries /proc/stat (the boot time) for the kernel log it carries.
  const KernelLogClock clock = clock_of(root);
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
      KernelLogFacts k = parse_kernel_log(r.data, where.source);
      place_kernel_log_times(k, clock);
      return Fact<KernelLogFacts>::present(std::move(k), where);
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
