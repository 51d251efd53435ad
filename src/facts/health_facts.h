#pragma once
// `trainready health`: a node's health over time. One sample (what the sysfs counters, the port
// states and the kernel log say now) advances a state kept between samples in a state file; the
// health rules judge that state. This header holds the state and the thresholds as data, each
// with its source; src/health/ reads samples, advances the state and stores it.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

// The state file's format version; a newer one is refused (exit 2), never guessed at.
inline constexpr int kHealthStateVersion = 1;

// GPUd store/scan_flaps.go (leptonai/gpud @85cb4ba): a port "flaps" when it was down in two
// samples at least 25 s apart and then came back to ACTIVE, 3 times within 12 hours
// (defaultIbPortFlapDownIntervalThreshold, defaultIbPortFlapBackToActiveThreshold).
inline constexpr std::int64_t kFlapDownPersistSeconds = 25;
inline constexpr int kFlapCycles = 3;
inline constexpr std::int64_t kFlapWindowSeconds = 12 * 3600;
// GPUd store/scan_drops.go (@74dd83f, defaultIbPortDropThreshold): down for 4 minutes or more
// with an unchanged link_downed counter is a "drop"; a changing counter is a flap candidate.
inline constexpr std::int64_t kDropSeconds = 4 * 60;
// GPUd components/accelerator/nvidia/xid/config.go DefaultRebootThreshold = 2 counts reboot
// events before a REBOOT_SYSTEM suggestion escalates to HARDWARE_INSPECTION; trainready escalates
// when the same Xid on the same GPU is seen in 2 boots (one reboot did not clear it), which is
// Azure's "persists after reboot" condition for a Guest Health Report (docs/health.md).
inline constexpr int kXidBootsToEscalate = 2;
// How long Xid events are kept for the repeat count: 24 hours, NVSentinel's health-events
// analyzer window for repeated fatal Xids (docs/configuration/health-events-analyzer.md).
inline constexpr std::int64_t kXidRetentionSeconds = 24 * 3600;

// The IB port counters read from /sys/class/infiniband/<dev>/ports/<n>/counters/.
inline constexpr std::string_view kHealthCounters[] = {"link_downed",
                                                       "symbol_error",
                                                       "port_rcv_errors",
                                                       "link_error_recovery",
                                                       "excessive_buffer_overrun_errors",
                                                       "local_link_integrity_errors",
                                                       "port_xmit_discards"};

enum class CounterPer { kSecond, kMinute, kHour, kAnyIncrease };
enum class CounterLevel { kDegraded, kFatal };

// One velocity limit on one counter: above `limit` per `per` is `level`.
struct CounterLimit {
  std::string_view counter;
  double limit;
  CounterPer per;
  CounterLevel level;
  std::string_view source;
};

inline constexpr std::string_view kNvsentinelNicSource =
    "NVIDIA/NVSentinel docs/configuration/nic-health-monitor.md (NIC health monitor defaults)";

// NVSentinel's NIC health monitor defaults (docs/configuration/nic-health-monitor.md): fatal on
// any increment of excessive_buffer_overrun_errors and local_link_integrity_errors; symbol_error
// > 10/s non-fatal and > 120/hour fatal ("IBTA BER spec violation"); link_error_recovery > 5/min;
// port_rcv_errors > 10/s; port_xmit_discards > 100/s. link_downed is judged by the port state
// machine above (GPUd's flap and drop), not here.
inline constexpr CounterLimit kCounterLimits[] = {
    {"symbol_error", 10, CounterPer::kSecond, CounterLevel::kDegraded, kNvsentinelNicSource},
    {"symbol_error", 120, CounterPer::kHour, CounterLevel::kFatal, kNvsentinelNicSource},
    {"port_rcv_errors", 10, CounterPer::kSecond, CounterLevel::kDegraded, kNvsentinelNicSource},
    {"link_error_recovery", 5, CounterPer::kMinute, CounterLevel::kDegraded, kNvsentinelNicSource},
    {"port_xmit_discards", 100, CounterPer::kSecond, CounterLevel::kDegraded, kNvsentinelNicSource},
    {"excessive_buffer_overrun_errors", 0, CounterPer::kAnyIncrease, CounterLevel::kFatal,
     kNvsentinelNicSource},
    {"local_link_integrity_errors", 0, CounterPer::kAnyIncrease, CounterLevel::kFatal,
     kNvsentinelNicSource},
};

// One counter's history: the last value and the points of the last hour (for per-hour rates).
struct CounterHistory {
  std::uint64_t last = 0;
  std::int64_t last_time = 0;
  // (time, value) of the samples of the last hour, oldest first, plus the newest sample before
  // that hour (the base of the per-hour increase).
  std::vector<std::pair<std::int64_t, std::uint64_t>> points;
  // Increase over the last interval and its length: per second = delta / interval_s.
  std::uint64_t delta = 0;
  std::int64_t interval_s = 0;
  std::uint64_t hour_increase = 0;  // increase over the last hour's samples
  std::int64_t hour_span_s = 0;     // seconds those samples span
  bool reset_seen = false;          // the value went down (driver reload, reboot): restarted
};

// The port's condition, as GPUd names them. kFlapping and kDropped are sticky: they stay after
// the port is ACTIVE again, until `health --clear` (GPUd: `gpud set-healthy`).
enum class PortCondition { kOk, kRecovered, kDown, kDropped, kFlapping };

inline std::string_view to_string(PortCondition c) {
  switch (c) {
    case PortCondition::kOk:
      return "ok";
    case PortCondition::kRecovered:
      return "recovered";
    case PortCondition::kDown:
      return "down";
    case PortCondition::kDropped:
      return "dropped";
    case PortCondition::kFlapping:
      return "flapping";
  }
  return "ok";
}

struct PortHistory {
  std::string state;            // the port's state word: ACTIVE, DOWN, INIT, ARMED, POLLING...
  std::string phys_state;       // LinkUp, Polling, Disabled...
  std::int64_t last_time = 0;   // the sample that set `state`
  std::int64_t down_since = 0;  // first sample of the current non-ACTIVE run; 0 while ACTIVE
  std::uint64_t down_since_link_downed = 0;  // link_downed at down_since
  bool down_persistent = false;     // two non-ACTIVE samples >= kFlapDownPersistSeconds apart
  std::vector<std::int64_t> flaps;  // times it came back ACTIVE after a persistent down
  PortCondition condition = PortCondition::kOk;
  std::int64_t condition_since = 0;
  std::int64_t recovered_at = 0;  // back to ACTIVE after kDown/kDropped
  std::map<std::string, CounterHistory> counters;
  std::string where;  // the sysfs directory, as the source names it
};

// One Xid event kept across samples: placed in time and tied to the boot it came from.
struct XidRecord {
  int code = 0;
  std::string pci;
  std::int64_t time = 0;
  std::int64_t boot = 0;  // /proc/stat btime of the boot it was seen in
  std::string line;       // the driver's text, clipped
  std::string where;
};

// One GPU's row-remap state over time (NVML nvmlDeviceGetRemappedRows, as `collect` records it in
// trainready/nvml.json): the boots in which a remap was seen pending, and a failure.
struct GpuHistory {
  std::string name;  // "GPU 0 (00000001:00:00.0)"
  bool remap_pending = false;
  bool remap_failure = false;
  std::vector<std::int64_t> pending_boots;  // btime of each boot the remap was pending in
  std::int64_t since = 0;                   // first sample with the current condition
};

// --- GPU series (issue 32 item 1): NVLink, ECC, row-remap, PCIe replay counters and throttling
// over time, read from NVML / a snapshot's nvml.json and `nvidia-smi -q`.

// DCGM common/DcgmGPUHardwareLimits.h and DcgmHealthWatch MonitorNVLink/MonitorPcie
// (NVIDIA/DCGM), the limits DCGM's health watches (and so NVSentinel's GPU health monitor, which
// runs them) apply: NVLink CRC (flit + data) at or above 100 per second fails ("RM has informed
// us that CRC errors only matter at rates of 100+ per second", DCGM_LIMIT_MAX_NVLINK_CRC_ERROR),
// an increase of 1 or more below that rate warns; NVLink replay and recovery errors fail on an
// increase of 1 or more (DCGM_LIMIT_MAX_NVLINK_ERROR 1, DCGM_FR_NVLINK_ERROR_CRITICAL); PCIe
// replays above 8 per minute warn ("8 replays per minute is the maximum recommended by RM",
// DCGM_LIMIT_MAX_PCIREPLAY_RATE).
inline constexpr std::string_view kDcgmLimitsSource =
    "NVIDIA/DCGM common/DcgmGPUHardwareLimits.h (DCGM health watches; NVSentinel's GPU health "
    "monitor)";
// AzNHC customTests/azure_gpu_ecc.nhc check_ecc (Azure/azurehpc-health-checks): fails on any
// SRAM uncorrectable count (volatile or aggregate, NHC2019), SRAM correctable above the conf's
// second argument, DRAM counts above its first, more than 512 uncorrectable remapped rows
// (NHC2007). Every H100/H200/A100 conf passes `check_gpu_ecc 20000000 10000`.
inline constexpr std::string_view kAznhcEccSource =
    "Azure/azurehpc-health-checks customTests/azure_gpu_ecc.nhc (conf: check_gpu_ecc 20000000 "
    "10000)";

// The GPU counters kept per GPU, as NVML and nvidia-smi -q name them.
inline constexpr std::string_view kGpuSeriesCounters[] = {
    "nvlink_crc_errors",       // NVML CRC flit + CRC data, summed over the links
    "nvlink_recovery_errors",  // NVML recovery errors, summed over the links
    "pcie_replays",            // nvidia-smi -q PCI / Replays Since Reset
    "ecc_sram_uncorrectable_volatile",
    "ecc_sram_uncorrectable_aggregate",
    "ecc_dram_uncorrectable_volatile",
    "ecc_dram_uncorrectable_aggregate",
    "ecc_sram_correctable_volatile",
    "ecc_sram_correctable_aggregate",
    "ecc_dram_correctable_volatile",
    "ecc_dram_correctable_aggregate",
    "remapped_rows_uncorrectable",  // Remapped Rows / Uncorrectable Error
    "remapped_rows_correctable",    // Remapped Rows / Correctable Error
};

// A limit on a GPU counter: a rate (kSecond/kMinute/kHour over the samples), any increase, or a
// value above `limit` (kAnyIncrease with kValue false; kValue: the count itself, as AzNHC).
struct GpuCounterLimit {
  std::string_view counter;
  double limit;
  CounterPer per;
  bool value;      // judge the count itself (AzNHC compares counts, not rates): value > limit
  bool inclusive;  // a rate at or above `limit` (DCGM's CRC check), else above it
  CounterLevel level;
  std::string_view source;
};

// PER-SIZE HOOK: AzNHC passes the ECC limits per VM size in its conf (check_gpu_ecc DRAM SRAM);
// every GPU size conf holds the same 20000000 / 10000 today, so they are constants here. When
// the catalog carries them per size, `gpu_counter_limits()` (src/rules/health/) is the one place
// to take them from it.
inline constexpr GpuCounterLimit kGpuCounterLimits[] = {
    {"nvlink_crc_errors", 0, CounterPer::kAnyIncrease, false, false, CounterLevel::kDegraded,
     kDcgmLimitsSource},
    {"nvlink_crc_errors", 100, CounterPer::kSecond, false, true, CounterLevel::kFatal,
     kDcgmLimitsSource},
    {"nvlink_recovery_errors", 0, CounterPer::kAnyIncrease, false, false, CounterLevel::kFatal,
     kDcgmLimitsSource},
    {"pcie_replays", 8, CounterPer::kMinute, false, false, CounterLevel::kDegraded,
     kDcgmLimitsSource},
    {"ecc_sram_uncorrectable_volatile", 0, CounterPer::kAnyIncrease, true, false,
     CounterLevel::kFatal, kAznhcEccSource},
    {"ecc_sram_uncorrectable_aggregate", 0, CounterPer::kAnyIncrease, true, false,
     CounterLevel::kFatal, kAznhcEccSource},
    {"ecc_sram_correctable_volatile", 10000, CounterPer::kAnyIncrease, true, false,
     CounterLevel::kFatal, kAznhcEccSource},
    {"ecc_sram_correctable_aggregate", 10000, CounterPer::kAnyIncrease, true, false,
     CounterLevel::kFatal, kAznhcEccSource},
    {"ecc_dram_uncorrectable_volatile", 20000000, CounterPer::kAnyIncrease, true, false,
     CounterLevel::kFatal, kAznhcEccSource},
    {"ecc_dram_uncorrectable_aggregate", 20000000, CounterPer::kAnyIncrease, true, false,
     CounterLevel::kFatal, kAznhcEccSource},
    {"ecc_dram_correctable_volatile", 20000000, CounterPer::kAnyIncrease, true, false,
     CounterLevel::kFatal, kAznhcEccSource},
    {"ecc_dram_correctable_aggregate", 20000000, CounterPer::kAnyIncrease, true, false,
     CounterLevel::kFatal, kAznhcEccSource},
    {"remapped_rows_uncorrectable", 512, CounterPer::kAnyIncrease, true, false,
     CounterLevel::kFatal, kAznhcEccSource},
};

// GPUd components/accelerator/nvidia/hw-slowdown/component.go (leptonai/gpud): HW slowdown
// events are counted per minute over a 10-minute window; 0.6 per minute (6 of the 10 minutes)
// or more is unhealthy (DefaultStateHWSlowdownEvaluationWindow,
// DefaultStateHWSlowdownEventsThresholdFrequencyPerMinute), suggested repair
// HARDWARE_INSPECTION. Its reasons: HW Slowdown, HW Thermal Slowdown, HW Power Brake Slowdown.
inline constexpr std::int64_t kThrottleWindowSeconds = 10 * 60;
inline constexpr double kThrottlePerMinute = 0.6;
inline constexpr std::string_view kGpudHwSlowdownSource =
    "leptonai/gpud components/accelerator/nvidia/hw-slowdown/component.go (10 min, 0.6/min)";

// nvml.h nvmlClocksEventReason* bits, named as nvidia-smi -q prints them. `hw`: one of GPUd's
// HW slowdown reasons (judged by the window above); the others are judged as AzNHC's
// azure_gpu_clock_throttling.nhc does: a warning for anything but idle and SW power cap.
struct ThrottleReason {
  std::uint64_t bit;
  std::string_view name;   // metric label and state key
  std::string_view label;  // nvidia-smi -q's words
  bool hw;
  bool aznhc_ok;  // AzNHC does not warn for it (idle, SW power cap)
};
inline constexpr ThrottleReason kThrottleReasons[] = {
    {0x1, "gpu_idle", "Idle", false, true},
    {0x2, "applications_clocks_setting", "Applications Clocks Setting", false, false},
    {0x4, "sw_power_cap", "SW Power Cap", false, true},
    {0x8, "hw_slowdown", "HW Slowdown", true, false},
    {0x10, "sync_boost", "Sync Boost", false, false},
    {0x20, "sw_thermal_slowdown", "SW Thermal Slowdown", false, false},
    {0x40, "hw_thermal_slowdown", "HW Thermal Slowdown", true, false},
    {0x80, "hw_power_brake_slowdown", "HW Power Brake Slowdown", true, false},
    {0x100, "display_clock_setting", "Display Clock Setting", false, false},
};

// One GPU's series: counters with rates, the remap-availability histogram, and per throttle
// reason the minutes (epoch minute numbers) it was seen active within kThrottleWindowSeconds.
struct GpuSeries {
  std::string name;
  std::map<std::string, CounterHistory> counters;
  std::map<std::string, std::uint64_t> remap_banks;  // Max/High/Partial/Low/None -> banks
  std::uint64_t clocks_event_reasons = 0;            // the last sample's bitmask
  bool clocks_seen = false;
  std::map<std::string, std::vector<std::int64_t>> throttle_minutes;
  std::map<std::string, std::int64_t> throttle_since;  // reason -> first sample of its run
};

// A probe (nvidia-smi -q) that did not return within its deadline: "the NVIDIA driver may be
// unresponsive" (GPUd's NVLink watchdog; NVSentinel's GpuDcgmUnresponsive, RESTART_BM). AzNHC
// files it as Resource.Hpc.Unhealthy.UnhealthyGPUNvidiasmi (NHC2015, "Nvidia-smi hang and may
// not recover", triggerGHR/config/nhc_fault_dictionary.cfg).
struct ProbeHistory {
  bool hung = false;                     // sticky: the last hang is not cleared yet
  std::vector<std::int64_t> hang_times;  // within kXidRetentionSeconds
  std::int64_t hung_boot = 0;            // btime of the boot of the last hang
  std::int64_t last_ok = 0;              // the last sample it answered in time
  double deadline_s = 0;
  std::string detail;  // how it hung, in words
};

// One line of the node's timeline (the HTML report and `--replay` draw it): the transitions of a
// sample. Kept for kXidRetentionSeconds, at most kTimelineMax lines.
struct TimelineEntry {
  std::int64_t time = 0;
  std::string text;
};
inline constexpr std::size_t kTimelineMax = 2000;

struct HealthState {
  int version = kHealthStateVersion;
  std::int64_t updated_at = 0;  // the last sample's time
  std::int64_t boot_time = 0;   // the last sample's boot
  int samples = 0;
  std::map<std::string, PortHistory> ports;     // "mlx5_0/1"
  std::vector<XidRecord> xids;                  // de-duplicated, within kXidRetentionSeconds
  std::vector<std::string> xid_seen;            // de-duplication keys of the kept records
  std::map<std::string, GpuHistory> gpus;       // by PCI bus id
  std::map<std::string, GpuSeries> gpu_series;  // by PCI bus id
  std::map<std::string, ProbeHistory> probes;   // "nvidia-smi -q"
  std::vector<TimelineEntry> timeline;
};

// What `health` hands the rules: the state after the last sample, and what changed in it.
struct HealthFacts {
  HealthState state;
  std::vector<std::string> events;  // transitions of the last sample, in words
  std::string source;               // the snapshot or "/" the last sample was read from
  // The VM's Azure ids from the snapshot's IMDS response, for the GHR body; empty when unknown.
  std::string resource_id;
  std::string vm_id;
  double xid_window_s = 2 * 3600.0;
};

}  // namespace trainready
