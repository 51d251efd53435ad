#include <map>

#include "health/health_outputs.h"
#include "report/prom/prom_writer.h"

namespace trainready {
namespace {

constexpr const char* kPrefix = "trainready_health_";

std::string n(const char* name) { return std::string(kPrefix) + name; }

}  // namespace

std::string health_metrics(const HealthFacts& f, const std::vector<Finding>& findings,
                           const std::string& action, const std::string& node) {
  const HealthState& s = f.state;
  PromWriter w;
  const PromLabels base{{"node", node}};
  auto with = [&](PromLabels more) {
    PromLabels l = base;
    for (auto& x : more) l.push_back(std::move(x));
    return l;
  };
  w.family(n("last_sample_timestamp_seconds"), "gauge", "Time of the last sample (Unix seconds)");
  w.sample(n("last_sample_timestamp_seconds"), base, static_cast<double>(s.updated_at));
  w.family(n("samples"), "gauge", "Samples the state file has taken in");
  w.sample(n("samples"), base, s.samples);

  w.family(n("ib_port_condition"), "gauge",
           "1 for the InfiniBand port's current condition (ok, recovered, down, dropped, "
           "flapping), 0 for the others");
  w.family(n("ib_port_flap_cycles"), "gauge",
           "Down-to-up cycles after a persistent down within the last 12 hours");
  w.family(n("ib_port_errors_total"), "counter", "The port's error counter (sysfs counters/)");
  w.family(n("ib_port_error_rate_per_second"), "gauge",
           "The counter's increase over the last interval, per second");
  w.family(n("ib_port_error_increase_last_hour"), "gauge",
           "The counter's increase over the samples of the last hour");
  for (const auto& [key, h] : s.ports) {
    for (PortCondition c : {PortCondition::kOk, PortCondition::kRecovered, PortCondition::kDown,
                            PortCondition::kDropped, PortCondition::kFlapping})
      w.sample(n("ib_port_condition"),
               with({{"port", key}, {"condition", std::string(to_string(c))}}),
               h.condition == c ? 1 : 0);
    w.sample(n("ib_port_flap_cycles"), with({{"port", key}}), static_cast<double>(h.flaps.size()));
    for (const auto& [name, c] : h.counters) {
      const PromLabels l = with({{"port", key}, {"counter", name}});
      w.sample(n("ib_port_errors_total"), l, static_cast<double>(c.last));
      w.sample(n("ib_port_error_rate_per_second"), l,
               c.interval_s > 0 ? static_cast<double>(c.delta) / static_cast<double>(c.interval_s)
                                : 0.0);
      w.sample(n("ib_port_error_increase_last_hour"), l, static_cast<double>(c.hour_increase));
    }
  }

  w.family(n("xid_events"), "gauge", "Xid events kept (24 hours) per GPU and code");
  w.family(n("xid_boots"), "gauge", "Boots in which the Xid was seen, per GPU and code");
  std::map<std::pair<std::string, int>, std::pair<int, std::map<std::int64_t, bool>>> xids;
  for (const XidRecord& r : s.xids) {
    auto& x = xids[{r.pci, r.code}];
    ++x.first;
    x.second[r.boot] = true;
  }
  for (const auto& [k, x] : xids) {
    const PromLabels l = with({{"gpu", k.first}, {"xid", std::to_string(k.second)}});
    w.sample(n("xid_events"), l, x.first);
    w.sample(n("xid_boots"), l, static_cast<double>(x.second.size()));
  }

  w.family(n("gpu_remap_pending"), "gauge", "1 when a row remap waits for a GPU reset");
  w.family(n("gpu_remap_failure"), "gauge", "1 when row remapping failed (sticky)");
  w.family(n("gpu_remap_pending_boots"), "gauge", "Boots in which the remap was pending");
  for (const auto& [bus, g] : s.gpus) {
    const PromLabels l = with({{"gpu", bus}});
    w.sample(n("gpu_remap_pending"), l, g.remap_pending ? 1 : 0);
    w.sample(n("gpu_remap_failure"), l, g.remap_failure ? 1 : 0);
    w.sample(n("gpu_remap_pending_boots"), l, static_cast<double>(g.pending_boots.size()));
  }

  w.family(n("gpu_errors_total"), "counter",
           "GPU error counters: NVLink CRC and recovery (NVML), ECC, remapped rows and PCIe "
           "replays (nvidia-smi -q)");
  w.family(n("gpu_error_rate_per_second"), "gauge",
           "The GPU counter's increase over the last interval, per second");
  w.family(n("gpu_error_increase_last_hour"), "gauge",
           "The GPU counter's increase over the samples of the last hour");
  w.family(n("gpu_remap_banks"), "gauge",
           "Banks per remap availability (Max, High, Partial, Low, None), nvidia-smi -q");
  w.family(n("gpu_clocks_event_active"), "gauge",
           "1 when the clocks event (throttle) reason is active in the last sample");
  w.family(n("gpu_clocks_event_window_ratio"), "gauge",
           "Share of the last 10 minutes the reason was active in (distinct minutes / 10; GPUd "
           "calls 0.6 unhealthy for the HW slowdown reasons)");
  for (const auto& [key, g] : s.gpu_series) {
    for (const auto& [name, c] : g.counters) {
      const PromLabels l = with({{"gpu", key}, {"counter", name}});
      w.sample(n("gpu_errors_total"), l, static_cast<double>(c.last));
      w.sample(n("gpu_error_rate_per_second"), l,
               c.interval_s > 0 ? static_cast<double>(c.delta) / static_cast<double>(c.interval_s)
                                : 0.0);
      w.sample(n("gpu_error_increase_last_hour"), l, static_cast<double>(c.hour_increase));
    }
    for (const auto& [avail, banks] : g.remap_banks)
      w.sample(n("gpu_remap_banks"), with({{"gpu", key}, {"availability", avail}}),
               static_cast<double>(banks));
    if (g.clocks_seen) {
      for (const ThrottleReason& r : kThrottleReasons) {
        const PromLabels l = with({{"gpu", key}, {"reason", std::string(r.name)}});
        w.sample(n("gpu_clocks_event_active"), l, (g.clocks_event_reasons & r.bit) ? 1 : 0);
        const auto m = g.throttle_minutes.find(std::string(r.name));
        w.sample(n("gpu_clocks_event_window_ratio"), l,
                 m == g.throttle_minutes.end() ? 0.0
                                               : static_cast<double>(m->second.size()) * 60.0 /
                                                     static_cast<double>(kThrottleWindowSeconds));
      }
    }
  }

  w.family(n("probe_hung"), "gauge",
           "1 when the probe did not return within its deadline and the hang is not cleared");
  w.family(n("probe_hangs"), "gauge", "Hangs of the probe within the last 24 hours");
  w.family(n("probe_deadline_seconds"), "gauge", "The probe's deadline");
  for (const auto& [name, p] : s.probes) {
    const PromLabels l = with({{"probe", name}});
    w.sample(n("probe_hung"), l, p.hung ? 1 : 0);
    w.sample(n("probe_hangs"), l, static_cast<double>(p.hang_times.size()));
    w.sample(n("probe_deadline_seconds"), l, p.deadline_s);
  }

  w.family(n("findings"), "gauge", "Findings of the last run per rule and severity");
  std::map<std::pair<std::string, std::string>, int> per;
  for (const Finding& x : findings) ++per[{x.rule_id, std::string(to_string(x.severity))}];
  for (const auto& [k, c] : per)
    w.sample(n("findings"), with({{"rule", k.first}, {"severity", k.second}}), c);
  w.family(n("repair_action"), "gauge",
           "1 for the repair the node's plan calls for (ignore, restart-job, reset-gpu, reboot, "
           "redeploy, report-azure)");
  for (const char* a : {"ignore", "restart-job", "reset-gpu", "reboot", "redeploy", "report-azure"})
    w.sample(n("repair_action"), with({{"action", a}}), action == a ? 1 : 0);
  return w.str();
}

}  // namespace trainready
