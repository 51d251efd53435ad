// The GPU series and probe verdicts: NVLink, ECC and remapped-row counts, PCIe replays, clocks
// event reasons that persist, and probes that hung. Limits are data in facts/health_facts.h, each
// with its source; the GHR categories are AzNHC's fault dictionary's
// (triggerGHR/config/nhc_fault_dictionary.cfg, Azure/azurehpc-health-checks).
#include <algorithm>
#include <cstdio>
#include <iterator>

#include "core/units.h"
#include "core/utc_time.h"
#include "rules/health/health_judge.h"

namespace trainready {
namespace {

constexpr std::string_view kFaultDictionary =
    "Azure/azurehpc-health-checks triggerGHR/config/nhc_fault_dictionary.cfg";

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf,
                v < 10 && v != static_cast<double>(static_cast<long long>(v)) ? "%.2f" : "%.0f", v);
  return buf;
}

bool is_nvlink(std::string_view c) { return c.rfind("nvlink_", 0) == 0; }
bool is_pcie(std::string_view c) { return c == "pcie_replays"; }
bool is_ecc(std::string_view c) { return c.rfind("ecc_", 0) == 0 || c.rfind("remapped_", 0) == 0; }

// The limits that apply now. PER-SIZE HOOK: the one place to take AzNHC's per-size ECC limits
// from the catalog once it carries them (every GPU size conf holds the same values today).
const std::vector<GpuCounterLimit>& gpu_counter_limits() {
  static const std::vector<GpuCounterLimit> limits(std::begin(kGpuCounterLimits),
                                                   std::end(kGpuCounterLimits));
  return limits;
}

void counters(const HealthFacts& f, std::string_view id, bool (*family)(std::string_view),
              std::vector<HealthVerdict>& all) {
  for (const auto& [key, g] : f.state.gpu_series) {
    std::vector<HealthVerdict> out;
    for (const GpuCounterLimit& lim : gpu_counter_limits()) {
      if (!family(lim.counter)) continue;
      auto it = g.counters.find(std::string(lim.counter));
      if (it == g.counters.end()) continue;
      const CounterHistory& c = it->second;
      double x = 0;
      std::string what;
      if (lim.value) {
        x = static_cast<double>(c.last);
        what = std::to_string(c.last);
      } else if (lim.per == CounterPer::kAnyIncrease) {
        x = static_cast<double>(c.delta);
        what = "+" + std::to_string(c.delta) + " since the sample before";
      } else {
        if (c.interval_s <= 0) continue;
        const double per = lim.per == CounterPer::kSecond ? 1.0 : 60.0;
        x = static_cast<double>(c.delta) * per / static_cast<double>(c.interval_s);
        what = num(x) + (lim.per == CounterPer::kSecond ? "/s" : "/min") + " over the last " +
               format_duration(static_cast<double>(c.interval_s));
      }
      if (!(lim.inclusive ? x >= lim.limit : x > lim.limit)) continue;
      const bool fatal = lim.level == CounterLevel::kFatal;
      HealthVerdict v;
      v.rule_id = std::string(id);
      v.subject = g.name + " " + std::string(lim.counter);
      v.severity = fatal ? Severity::kError : Severity::kWarning;
      v.action = fatal ? RepairAction::kReportAzure : RepairAction::kIgnore;
      const std::string bound = lim.value ? "above " + num(lim.limit)
                                : lim.per == CounterPer::kAnyIncrease
                                    ? "any increase"
                                    : (lim.inclusive ? "at or above " : "above ") + num(lim.limit) +
                                          (lim.per == CounterPer::kSecond ? "/s" : "/min");
      v.message = g.name + " " + std::string(lim.counter) + " " + what + " (" +
                  (fatal ? "fatal: " : "degraded: ") + bound + ")";
      v.evidence.push_back(
          {std::string(lim.counter) + " " + std::to_string(c.last) + " (+" +
               std::to_string(c.delta) + " in " + std::to_string(c.interval_s) + " s, +" +
               std::to_string(c.hour_increase) + " in " + std::to_string(c.hour_span_s) + " s)",
           {is_nvlink(lim.counter) ? "NVML NVLink error counters (a snapshot: trainready/nvml.json)"
                                   : "nvidia-smi -q",
            0}});
      if (is_nvlink(lim.counter)) {
        if (fatal) v.ghr_category = "Resource.Hpc.Unhealthy.NvLink";
        v.cause = "Limit from " + std::string(lim.source) +
                  ". NVLink recovery errors and CRC errors at 100/s or more are DCGM failures "
                  "(the link retrains or corrupts data); Azure's category for a bad NVLink is "
                  "NvLink (NHC2016, " +
                  std::string(kFaultDictionary) + ").";
      } else if (is_pcie(lim.counter)) {
        v.cause = "Limit from " + std::string(lim.source) +
                  ". PCIe replays above the rate the driver team recommends mean a marginal "
                  "link (retimer, riser, slot); DCGM warns, it does not fail.";
      } else {
        v.ghr_category = lim.counter == "remapped_rows_uncorrectable"
                             ? "Resource.Hpc.Unhealthy.HpcRowRemapFailure"
                             : "Resource.Hpc.Unhealthy.DBEOverLimit";
        v.cause = "Limit from " + std::string(lim.source) + ": AzNHC fails the node (" +
                  (lim.counter == "remapped_rows_uncorrectable" ? "NHC2007, HpcRowRemapFailure"
                                                                : "NHC2019, DBEOverLimit") +
                  " in " + std::string(kFaultDictionary) + ").";
      }
      v.fix = repair_fix(v.action, v.ghr_category);
      out.push_back(std::move(v));
    }
    // DCGM: a counter at its failure level is a failure, not also a warning.
    for (const HealthVerdict& v : out) {
      const bool shadowed = v.severity == Severity::kWarning &&
                            std::any_of(out.begin(), out.end(), [&](const HealthVerdict& o) {
                              return o.subject == v.subject && o.severity == Severity::kError;
                            });
      if (!shadowed) all.push_back(v);
    }
  }
}

void throttle(const HealthFacts& f, std::string_view id, std::vector<HealthVerdict>& out) {
  const double window_min = static_cast<double>(kThrottleWindowSeconds) / 60.0;
  for (const auto& [key, g] : f.state.gpu_series) {
    if (!g.clocks_seen) continue;
    for (const ThrottleReason& r : kThrottleReasons) {
      const std::string name(r.name);
      const auto m = g.throttle_minutes.find(name);
      const std::size_t minutes = m == g.throttle_minutes.end() ? 0 : m->second.size();
      const bool active = (g.clocks_event_reasons & r.bit) != 0;
      HealthVerdict v;
      v.rule_id = std::string(id);
      v.subject = g.name + " " + name;
      const double freq = static_cast<double>(minutes) / window_min;
      if (r.hw && freq >= kThrottlePerMinute) {
        v.severity = Severity::kError;
        v.action = RepairAction::kReportAzure;
        v.ghr_category = "Resource.Hpc.Unhealthy.ManualInvestigation";
        v.message = g.name + ": " + std::string(r.label) + " active in " + std::to_string(minutes) +
                    " of the last " + num(window_min) + " minutes (" + num(freq) +
                    "/min, unhealthy at " + num(kThrottlePerMinute) + "/min)";
        v.cause = "GPUd's HW slowdown rule (" + std::string(kGpudHwSlowdownSource) +
                  "): a hardware slowdown that persists is overheating or a failing power "
                  "supply; GPUd asks for HARDWARE_INSPECTION, which on Azure is a Guest Health "
                  "Report for manual investigation (NHC2010, " +
                  std::string(kFaultDictionary) + ").";
      } else if (active && !r.aznhc_ok) {
        v.severity = Severity::kWarning;
        v.action = RepairAction::kIgnore;
        const auto since = g.throttle_since.find(name);
        v.message = g.name + ": clocks event reason " + std::string(r.label) + " active" +
                    (since == g.throttle_since.end() ? "" : " since " + utc_text(since->second)) +
                    ", " + std::to_string(minutes) + " of the last " + num(window_min) + " minutes";
        v.cause =
            "AzNHC customTests/azure_gpu_clock_throttling.nhc warns for any clocks event "
            "reason but idle and SW power cap; GPUd's unhealthy level is for the HW reasons "
            "persisting (" +
            std::string(kGpudHwSlowdownSource) + ").";
      } else {
        continue;
      }
      char bits[32];
      std::snprintf(bits, sizeof bits, "0x%llx",
                    static_cast<unsigned long long>(g.clocks_event_reasons));
      v.evidence.push_back({"clocks event reasons " + std::string(bits) + "; " + name +
                                " active in " + std::to_string(minutes) + " distinct minutes",
                            {"NVML nvmlDeviceGetCurrentClocksEventReasons / nvidia-smi -q", 0}});
      v.fix = repair_fix(v.action, v.ghr_category);
      out.push_back(std::move(v));
    }
  }
}

void probes(const HealthFacts& f, std::string_view id, std::vector<HealthVerdict>& out) {
  for (const auto& [name, p] : f.state.probes) {
    if (!p.hung) continue;
    HealthVerdict v;
    v.rule_id = std::string(id);
    v.subject = name;
    v.severity = Severity::kError;
    v.action = RepairAction::kReportAzure;
    v.ghr_category = "Resource.Hpc.Unhealthy.UnhealthyGPUNvidiasmi";
    const std::int64_t last = p.hang_times.empty() ? 0 : p.hang_times.back();
    v.message = "`" + name + "` " + p.detail + (last ? " at " + utc_text(last) : "") + " (" +
                std::to_string(p.hang_times.size()) +
                " hangs in 24 h): the NVIDIA driver may be unresponsive";
    v.evidence.push_back({name + ": " + p.detail, {"trainready health probe deadline", 0}});
    v.cause =
        "A probe that does not return within its deadline is itself a fault: GPUd marks the "
        "node unhealthy-reboot when its NVLink check \"has not completed ... NVIDIA driver may "
        "be unresponsive\"; NVSentinel raises GpuDcgmUnresponsive (RESTART_BM); AzNHC files "
        "Resource.Hpc.Unhealthy.UnhealthyGPUNvidiasmi (NHC2015, \"Nvidia-smi hang and may not "
        "recover\", " +
        std::string(kFaultDictionary) +
        "). Sticky until a sample in a new boot answers in time, or `--clear probes`.";
    v.fix = repair_fix(v.action, v.ghr_category) +
            " With the driver hung, `nvidia-bug-report.sh` may hang too: run it with a timeout "
            "(`timeout 300 nvidia-bug-report.sh --safe-mode`).";
    out.push_back(std::move(v));
  }
}

}  // namespace

void health_gpu_verdicts(const HealthFacts& f, std::string_view rule_id,
                         std::vector<HealthVerdict>& out) {
  if (rule_id == "health-gpu-nvlink-errors")
    counters(f, rule_id, is_nvlink, out);
  else if (rule_id == "health-gpu-ecc")
    counters(f, rule_id, is_ecc, out);
  else if (rule_id == "health-gpu-pcie-replay")
    counters(f, rule_id, is_pcie, out);
  else if (rule_id == "health-gpu-throttle")
    throttle(f, rule_id, out);
  else if (rule_id == "health-probe-hung")
    probes(f, rule_id, out);
}

}  // namespace trainready
