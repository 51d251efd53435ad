#include "health/health_machine.h"

#include <algorithm>
#include <set>

#include "core/input_error.h"
#include "core/units.h"
#include "core/utf8.h"

namespace trainready {
namespace {
constexpr std::int64_t kHour = 3600;
}  // namespace

void advance_counter(CounterHistory& c, std::uint64_t v, std::int64_t t, const std::string& key,
                     const std::string& name, std::vector<std::string>& events) {
  if (c.last_time == 0 || v < c.last) {
    if (c.last_time != 0) {
      c.reset_seen = true;
      events.push_back(key + " " + name + " went down from " + std::to_string(c.last) + " to " +
                       std::to_string(v) +
                       " (counter reset: driver reload or reboot); rates "
                       "restart here");
    }
    c.points.assign(1, {t, v});
    c.delta = 0;
    c.interval_s = 0;
    c.hour_increase = 0;
    c.hour_span_s = 0;
  } else {
    c.delta = v - c.last;
    c.interval_s = t - c.last_time;
    c.points.emplace_back(t, v);
    // Keep the last hour's points and the newest one at or before an hour ago (the base).
    std::size_t base = 0;
    for (std::size_t i = 0; i < c.points.size(); ++i)
      if (c.points[i].first <= t - kHour) base = i;
    c.points.erase(c.points.begin(), c.points.begin() + static_cast<std::ptrdiff_t>(base));
    c.hour_increase = v - c.points.front().second;
    c.hour_span_s = t - c.points.front().first;
  }
  c.last = v;
  c.last_time = t;
}

namespace {

void set_condition(PortHistory& h, PortCondition c, std::int64_t t) {
  h.condition = c;
  h.condition_since = t;
}

void advance_port(PortHistory& h, const PortSample& p, std::int64_t t,
                  std::vector<std::string>& events) {
  const std::string& key = p.key;
  for (const auto& [name, v] : p.counters)
    advance_counter(h.counters[name], v, t, key, name, events);
  const auto ld_it = p.counters.find("link_downed");
  const std::uint64_t link_downed = ld_it == p.counters.end() ? 0 : ld_it->second;
  const bool active = p.state == "ACTIVE";
  const std::string was = h.state.empty() ? std::string("(first sample)") : h.state;
  if (!h.state.empty() && h.state != p.state)
    events.push_back(key + " " + was + " -> " + p.state +
                     (p.phys_state.empty() ? "" : " (" + p.phys_state + ")"));
  h.state = p.state;
  h.phys_state = p.phys_state;
  h.last_time = t;
  h.where = p.where;
  // Flap times older than the window no longer count.
  std::erase_if(h.flaps, [&](std::int64_t f) { return f < t - kFlapWindowSeconds; });
  if (!active) {
    if (h.down_since == 0) {
      h.down_since = t;
      h.down_since_link_downed = link_downed;
      h.down_persistent = false;
      if (h.condition == PortCondition::kOk || h.condition == PortCondition::kRecovered)
        set_condition(h, PortCondition::kDown, t);
      return;
    }
    if (t - h.down_since >= kFlapDownPersistSeconds) h.down_persistent = true;
    // GPUd findDrops: down and link_downed unchanged for kDropSeconds; a changing counter is
    // a flap candidate, not a drop.
    if (h.condition == PortCondition::kDown && t - h.down_since >= kDropSeconds &&
        link_downed == h.down_since_link_downed) {
      set_condition(h, PortCondition::kDropped, t);
      events.push_back(key + " dropped: " + p.state + " for " +
                       format_duration(static_cast<double>(t - h.down_since)) +
                       " with link_downed unchanged at " + std::to_string(link_downed) +
                       " (GPUd: 4 min); sticky until --clear");
    }
    return;
  }
  // ACTIVE.
  if (h.down_since != 0) {
    const std::int64_t down_for = t - h.down_since;
    if (h.down_persistent) h.flaps.push_back(t);
    if (h.condition != PortCondition::kFlapping &&
        static_cast<int>(h.flaps.size()) >= kFlapCycles) {
      set_condition(h, PortCondition::kFlapping, t);
      events.push_back(key + " flapping: back to ACTIVE after a persistent down " +
                       std::to_string(h.flaps.size()) + " times within " +
                       format_duration(static_cast<double>(kFlapWindowSeconds)) +
                       " (GPUd: 3); sticky until --clear");
    } else if (h.condition == PortCondition::kDown) {
      set_condition(h, PortCondition::kRecovered, t);
      h.recovered_at = t;
      events.push_back(key + " recovered: ACTIVE again after " +
                       format_duration(static_cast<double>(down_for)) + " (down->up cycle " +
                       std::to_string(h.flaps.size()) + " of " + std::to_string(kFlapCycles) +
                       " for a flap)");
    } else {
      h.recovered_at = t;
    }
    h.down_since = 0;
    h.down_persistent = false;
    return;
  }
  // A recovered port with no down->up cycle left in the window is ok again.
  if (h.condition == PortCondition::kRecovered && h.flaps.empty() &&
      t - h.condition_since >= kFlapWindowSeconds)
    set_condition(h, PortCondition::kOk, t);
}

void advance_xids(HealthState& s, const HealthSample& sample, std::vector<std::string>& events) {
  if (!sample.kernel_log.ok()) return;
  std::set<std::string> seen(s.xid_seen.begin(), s.xid_seen.end());
  for (const XidEvent& e : sample.kernel_log->xids) {
    if (e.time == 0) continue;  // cannot be placed in time: gpu-xid-errors reports it
    if (e.time < sample.time - kXidRetentionSeconds) continue;
    const std::string key =
        std::to_string(e.code) + "|" + e.pci + "|" + std::to_string(e.time) + "|" + e.detail;
    if (!seen.insert(key).second) continue;  // the same line, read again
    XidRecord r;
    r.code = e.code;
    r.pci = e.pci;
    r.time = e.time;
    // A line from before the current boot: an earlier boot, which one unknown (0).
    r.boot = (e.earlier_boot || (sample.boot_time != 0 && e.time < sample.boot_time))
                 ? 0
                 : sample.boot_time;
    r.line = clip_text(e.detail, 160);
    r.where = e.where.source;
    events.push_back("Xid " + std::to_string(e.code) + " on " + e.pci +
                     (r.boot == 0 ? " (before the current boot)" : ""));
    s.xids.push_back(std::move(r));
    s.xid_seen.push_back(key);
  }
  // Retention: records and keys (code|pci|time|text) age out by their time.
  const std::int64_t cutoff = sample.time - kXidRetentionSeconds;
  std::erase_if(s.xids, [&](const XidRecord& r) { return r.time < cutoff; });
  std::erase_if(s.xid_seen, [&](const std::string& k) {
    const std::size_t a = k.find('|');
    const std::size_t b = a == std::string::npos ? a : k.find('|', a + 1);
    const std::size_t c = b == std::string::npos ? b : k.find('|', b + 1);
    if (c == std::string::npos) return true;
    try {
      return std::stoll(k.substr(b + 1, c - b - 1)) < cutoff;
    } catch (const std::exception&) {
      return true;
    }
  });
}

void advance_gpus(HealthState& s, const HealthSample& sample, std::vector<std::string>& events) {
  if (!sample.gpus.ok()) return;
  for (const Gpu& g : sample.gpus->gpus) {
    GpuHistory& h = s.gpus[g.pci_bus_id];
    h.name = "GPU " + std::to_string(g.index) + " (" + g.pci_bus_id + ")";
    const bool pending = g.remap_pending.value_or(false);
    const bool failure = g.remap_failure.value_or(false);
    if (failure && !h.remap_failure) {
      events.push_back(h.name + " row remapping failed");
      h.since = sample.time;
    }
    if (pending && !h.remap_pending) {
      events.push_back(h.name + " row remap pending a GPU reset");
      h.since = sample.time;
    }
    if (!pending && h.remap_pending) events.push_back(h.name + " row remap no longer pending");
    if (pending && sample.boot_time != 0 &&
        std::find(h.pending_boots.begin(), h.pending_boots.end(), sample.boot_time) ==
            h.pending_boots.end())
      h.pending_boots.push_back(sample.boot_time);
    if (!pending) h.pending_boots.clear();
    h.remap_pending = pending;
    h.remap_failure = h.remap_failure || failure;  // sticky until --clear
  }
}

}  // namespace

std::vector<std::string> advance_health(HealthState& state, const HealthSample& sample) {
  if (state.updated_at != 0 && sample.time < state.updated_at)
    throw InputError(sample.source, 0,
                     "this sample (" + std::to_string(sample.time) +
                         ") is older than the state's last one (" +
                         std::to_string(state.updated_at) + "): samples must come in time order");
  std::vector<std::string> events;
  if (state.boot_time != 0 && sample.boot_time != 0 && sample.boot_time != state.boot_time)
    events.push_back("rebooted: /proc/stat btime " + std::to_string(state.boot_time) + " -> " +
                     std::to_string(sample.boot_time));
  for (const PortSample& p : sample.ports) advance_port(state.ports[p.key], p, sample.time, events);
  advance_xids(state, sample, events);
  advance_gpus(state, sample, events);
  advance_gpu_series(state, sample, events);
  advance_probes(state, sample, events);
  for (const std::string& e : events) state.timeline.push_back({sample.time, e});
  std::erase_if(state.timeline, [&](const TimelineEntry& e) {
    return e.time < sample.time - kXidRetentionSeconds;
  });
  if (state.timeline.size() > kTimelineMax)
    state.timeline.erase(state.timeline.begin(),
                         state.timeline.end() - static_cast<std::ptrdiff_t>(kTimelineMax));
  state.updated_at = sample.time;
  if (sample.boot_time != 0) state.boot_time = sample.boot_time;
  ++state.samples;
  return events;
}

std::string clear_health(HealthState& state, const std::string& key) {
  auto clear_port = [](PortHistory& h) {
    h.flaps.clear();
    h.recovered_at = 0;
    h.condition = h.down_since != 0 ? PortCondition::kDown : PortCondition::kOk;
    h.condition_since = h.last_time;
  };
  if (key == "all" || key == "ports") {
    for (auto& [k, h] : state.ports) clear_port(h);
    if (key == "ports")
      return "cleared the conditions of " + std::to_string(state.ports.size()) + " ports";
  }
  if (key == "all" || key == "probes") {
    const std::size_t n = clear_probes(state);
    if (key == "probes") return "cleared the hang of " + std::to_string(n) + " probes";
  }
  if (key == "all" || key == "gpus") {
    for (auto& [k, g] : state.gpus) {
      g.remap_failure = false;
      g.pending_boots.clear();
    }
    clear_gpu_series(state);
    if (key == "gpus")
      return "cleared the row-remap history of " + std::to_string(state.gpus.size()) + " GPUs";
  }
  if (key == "all" || key == "xids") {
    // The keys stay, so the same kernel-log lines are not counted again.
    const std::size_t n = state.xids.size();
    state.xids.clear();
    if (key == "xids") return "cleared " + std::to_string(n) + " Xid records";
    return "cleared every port condition and " + std::to_string(n) + " Xid records";
  }
  auto it = state.ports.find(key);
  if (it == state.ports.end())
    throw InputError("--clear", 0,
                     "'" + key +
                         "' is not in the state: expected all, ports, xids, gpus, probes or a port "
                         "such as mlx5_0/1");
  clear_port(it->second);
  return "cleared " + key;
}

}  // namespace trainready
