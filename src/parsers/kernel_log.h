#pragma once
// The kernel log as users and probes have it (`dmesg`, `dmesg -T`, `journalctl -k`,
// /var/log/kern.log, /var/log/messages) -> the NVIDIA driver's Xid events. Pure function; any text
// is a kernel log (one without NVRM lines has no Xid), binary data throws InputError.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "facts/node_facts.h"

namespace trainready {

KernelLogFacts parse_kernel_log(std::string_view text, const std::string& source);

// What is known of the clock a kernel log was written against, to place its lines in time.
struct KernelLogClock {
  std::int64_t boot_time = 0;  // the current boot (/proc/stat btime), seconds since the epoch
  std::int64_t read_at = 0;    // when the log was read, seconds since the epoch
  bool zone_is_utc = true;     // times printed without a zone: UTC, or this process's zone
  std::string note;            // how the clock was found (said in the findings)
};

// Sets each Xid's `time` (seconds since the epoch; 0 where the line's time cannot be placed) and
// the log's boot_time / read_at / time_note. Forms placed: syslog "Mmm dd hh:mm:ss" (the year is
// the one that puts the line at or before read_at), ISO 8601 with or without a zone, `dmesg -T`
// "[Www Mmm dd hh:mm:ss yyyy]", and the kernel's "[seconds]" since boot (boot_time + seconds;
// only for lines of the last boot in the log).
void place_kernel_log_times(KernelLogFacts& k, const KernelLogClock& clock);

// One timestamp as place_kernel_log_times reads it (e.g. a manifest's "2026-11-29T00:00:00Z");
// 0 when it cannot be placed.
std::int64_t kernel_log_time(std::string_view timestamp, const KernelLogClock& clock);

// /proc/stat's "btime N" (seconds since the epoch), or nullopt.
std::optional<std::int64_t> parse_proc_stat_btime(std::string_view text);

// Whether `text` looks like a kernel log with NVIDIA driver lines (for capture detection).
bool looks_like_kernel_log(std::string_view text);

}  // namespace trainready
