// The GPU series and the probes over time: counters with rates (NVLink CRC/recovery from NVML,
// ECC, remapped rows and PCIe replays from `nvidia-smi -q`), the remap availability histogram,
// per throttle reason the minutes it was active in the last 10, and probes that hung. Pure: no
// file is read here.
#include <algorithm>
#include <cctype>

#include "health/health_machine.h"

namespace trainready {
namespace {

// NVML and nvidia-smi print the bus id in upper case ("00000000:9B:00.0"); one key for both.
std::string gpu_key(const std::string& pci) {
  std::string k = pci;
  for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return k;
}

void advance_throttle(GpuSeries& g, std::uint64_t reasons, std::int64_t t,
                      std::vector<std::string>& events) {
  const std::int64_t minute = t / 60;
  const std::int64_t oldest = (t - kThrottleWindowSeconds) / 60;
  for (const ThrottleReason& r : kThrottleReasons) {
    const std::string name(r.name);
    const bool active = (reasons & r.bit) != 0;
    auto& minutes = g.throttle_minutes[name];
    std::erase_if(minutes, [&](std::int64_t m) { return m <= oldest; });
    const bool was = g.throttle_since.count(name) != 0;
    if (active) {
      if (minutes.empty() || minutes.back() != minute) minutes.push_back(minute);
      if (!was) {
        g.throttle_since[name] = t;
        if (r.name != "gpu_idle")
          events.push_back(g.name + " clocks event reason " + std::string(r.label) + " active");
      }
    } else if (was) {
      g.throttle_since.erase(name);
      if (r.name != "gpu_idle")
        events.push_back(g.name + " clocks event reason " + std::string(r.label) +
                         " no longer active");
    }
    if (minutes.empty()) g.throttle_minutes.erase(name);
  }
}

// Every GPU counter here counts errors: each increase is a transition of the timeline.
void advance(GpuSeries& s, const std::string& name, std::uint64_t v, std::int64_t t,
             std::vector<std::string>& events) {
  CounterHistory& c = s.counters[name];
  advance_counter(c, v, t, s.name, name, events);
  if (c.delta > 0)
    events.push_back(s.name + " " + name + " +" + std::to_string(c.delta) + " (now " +
                     std::to_string(c.last) + ")");
}

}  // namespace

void advance_gpu_series(HealthState& state, const HealthSample& sample,
                        std::vector<std::string>& events) {
  const std::int64_t t = sample.time;
  std::map<std::string, std::uint64_t> clocks;  // by key: NVML first, nvidia-smi -q over it
  if (sample.gpus.ok()) {
    for (const Gpu& g : sample.gpus->gpus) {
      const std::string key = gpu_key(g.pci_bus_id);
      GpuSeries& s = state.gpu_series[key];
      s.name = "GPU " + std::to_string(g.index) + " (" + g.pci_bus_id + ")";
      if (g.nvlink_crc_errors) advance(s, "nvlink_crc_errors", *g.nvlink_crc_errors, t, events);
      if (g.nvlink_recovery_errors)
        advance(s, "nvlink_recovery_errors", *g.nvlink_recovery_errors, t, events);
      if (g.clocks_event_reasons) clocks[key] = *g.clocks_event_reasons;
    }
  }
  for (const GpuCounterSample& c : sample.gpu_counters) {
    const std::string key = gpu_key(c.pci);
    GpuSeries& s = state.gpu_series[key];
    if (s.name.empty()) s.name = "GPU " + c.pci;
    for (const auto& [name, v] : c.counters) advance(s, name, v, t, events);
    if (!c.remap_banks.empty()) {
      const auto none = c.remap_banks.find("None");
      const std::uint64_t was = s.remap_banks.count("None") ? s.remap_banks.at("None") : 0;
      if (none != c.remap_banks.end() && none->second > was)
        events.push_back(s.name + " banks with no remap left: " + std::to_string(none->second));
      s.remap_banks = c.remap_banks;
    }
    if (c.clocks_event_reasons) clocks[key] = *c.clocks_event_reasons;
  }
  for (const auto& [key, reasons] : clocks) {
    GpuSeries& s = state.gpu_series[key];
    s.clocks_event_reasons = reasons;
    s.clocks_seen = true;
    advance_throttle(s, reasons, t, events);
  }
}

void advance_probes(HealthState& state, const HealthSample& sample,
                    std::vector<std::string>& events) {
  const std::int64_t t = sample.time;
  for (auto& [name, h] : state.probes)
    std::erase_if(h.hang_times, [&](std::int64_t x) { return x < t - kXidRetentionSeconds; });
  for (const ProbeRun& p : sample.probes) {
    ProbeHistory& h = state.probes[p.name];
    if (p.deadline_s > 0) h.deadline_s = p.deadline_s;
    if (p.hung) {
      h.hang_times.push_back(t);
      if (!h.hung)
        events.push_back(p.name + ": " + p.detail +
                         ": the NVIDIA driver may be unresponsive; sticky until a reboot or "
                         "--clear probes");
      else
        events.push_back(p.name + " hung again (" + std::to_string(h.hang_times.size()) +
                         " hangs in 24 h)");
      h.hung = true;
      h.hung_boot = sample.boot_time;
      h.detail = p.detail;
      continue;
    }
    h.last_ok = t;
    if (h.hung && sample.boot_time != 0 && h.hung_boot != 0 && sample.boot_time != h.hung_boot) {
      h.hung = false;
      events.push_back(p.name + " answers again after a reboot: hang cleared");
    }
  }
}

void clear_gpu_series(HealthState& state) {
  for (auto& [key, g] : state.gpu_series) {
    g.throttle_minutes.clear();
    // Rates restart from the next sample; counts (ECC, remapped rows) stay what they are.
    for (auto& [name, c] : g.counters) {
      c.points.assign(1, {c.last_time, c.last});
      c.delta = 0;
      c.interval_s = 0;
      c.hour_increase = 0;
      c.hour_span_s = 0;
    }
  }
}

std::size_t clear_probes(HealthState& state) {
  std::size_t n = 0;
  for (auto& [name, h] : state.probes) {
    n += h.hung ? 1 : 0;
    h.hung = false;
    h.hang_times.clear();
  }
  return n;
}

}  // namespace trainready
