#pragma once
// The counters `trainready health` keeps over time that only `nvidia-smi -q` prints: ECC counts
// split by SRAM/DRAM and volatile/aggregate, remapped-row counts and the bank remap availability
// histogram, PCIe replays, and the clocks event (throttle) reasons. A parser: it names what it
// read and never judges.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

struct GpuCounterSample {
  std::string pci;  // "00000000:18:00.0", as the GPU block's header names it
  std::map<std::string, std::uint64_t> counters;      // kGpuSeriesCounters that were readable
  std::map<std::string, std::uint64_t> remap_banks;   // "Max", "High", "Partial", "Low", "None"
  std::optional<std::uint64_t> clocks_event_reasons;  // nvml.h bits of the reasons "Active"
  std::string where;                                  // source:line of the GPU header
};

// Throws InputError naming `source` when the text is not `nvidia-smi -q` output (no NVSMI LOG
// banner, no "Driver Version"/"Attached GPUs" header). Fields that read "N/A", "ERR!" or any
// non-number are left out.
std::vector<GpuCounterSample> parse_health_smi_query(std::string_view text,
                                                     const std::string& source);

}  // namespace trainready
