#pragma once
// The kernel log as users and probes have it (`dmesg`, `dmesg -T`, `journalctl -k`,
// /var/log/kern.log, /var/log/messages) -> the NVIDIA driver's Xid events. Pure function; any text
// is a kernel log (one without NVRM lines has no Xid), binary data throws InputError.
#include <string>
#include <string_view>

#include "facts/node_facts.h"

namespace trainready {

KernelLogFacts parse_kernel_log(std::string_view text, const std::string& source);

// Whether `text` looks like a kernel log with NVIDIA driver lines (for capture detection).
bool looks_like_kernel_log(std::string_view text);

}  // namespace trainready
