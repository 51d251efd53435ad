#include "health/health_state_parts.h"

namespace trainready {

using nlohmann::json;

json counter_history_json(const CounterHistory& c) {
  json points = json::array();
  for (const auto& [t, v] : c.points) points.push_back({t, v});
  return {{"last", c.last},
          {"last_time", c.last_time},
          {"points", points},
          {"delta", c.delta},
          {"interval_s", c.interval_s},
          {"hour_increase", c.hour_increase},
          {"hour_span_s", c.hour_span_s},
          {"reset_seen", c.reset_seen}};
}

CounterHistory parse_counter_history(const json& c) {
  CounterHistory ch;
  ch.last = c.at("last").get<std::uint64_t>();
  ch.last_time = c.at("last_time").get<std::int64_t>();
  for (const auto& pt : c.at("points"))
    ch.points.emplace_back(pt.at(0).get<std::int64_t>(), pt.at(1).get<std::uint64_t>());
  ch.delta = c.at("delta").get<std::uint64_t>();
  ch.interval_s = c.at("interval_s").get<std::int64_t>();
  ch.hour_increase = c.at("hour_increase").get<std::uint64_t>();
  ch.hour_span_s = c.at("hour_span_s").get<std::int64_t>();
  ch.reset_seen = c.at("reset_seen").get<bool>();
  return ch;
}

void put_gpu_series(json& j, const HealthState& s) {
  json series = json::object();
  for (const auto& [key, g] : s.gpu_series) {
    json counters = json::object();
    for (const auto& [name, c] : g.counters) counters[name] = counter_history_json(c);
    series[key] = {{"name", g.name},
                   {"counters", counters},
                   {"remap_banks", g.remap_banks},
                   {"clocks_event_reasons", g.clocks_event_reasons},
                   {"clocks_seen", g.clocks_seen},
                   {"throttle_minutes", g.throttle_minutes},
                   {"throttle_since", g.throttle_since}};
  }
  json probes = json::object();
  for (const auto& [name, p] : s.probes)
    probes[name] = {
        {"hung", p.hung},       {"hang_times", p.hang_times}, {"hung_boot", p.hung_boot},
        {"last_ok", p.last_ok}, {"deadline_s", p.deadline_s}, {"detail", p.detail}};
  json timeline = json::array();
  for (const TimelineEntry& e : s.timeline) timeline.push_back({e.time, e.text});
  j["gpu_series"] = series;
  j["probes"] = probes;
  j["timeline"] = timeline;
}

void get_gpu_series(const json& j, HealthState& s) {
  if (j.contains("gpu_series")) {
    for (const auto& [key, g] : j.at("gpu_series").items()) {
      GpuSeries x;
      x.name = g.at("name").get<std::string>();
      for (const auto& [name, c] : g.at("counters").items())
        x.counters[name] = parse_counter_history(c);
      x.remap_banks = g.at("remap_banks").get<std::map<std::string, std::uint64_t>>();
      x.clocks_event_reasons = g.at("clocks_event_reasons").get<std::uint64_t>();
      x.clocks_seen = g.at("clocks_seen").get<bool>();
      x.throttle_minutes =
          g.at("throttle_minutes").get<std::map<std::string, std::vector<std::int64_t>>>();
      x.throttle_since = g.at("throttle_since").get<std::map<std::string, std::int64_t>>();
      s.gpu_series[key] = std::move(x);
    }
  }
  if (j.contains("probes")) {
    for (const auto& [name, p] : j.at("probes").items()) {
      ProbeHistory h;
      h.hung = p.at("hung").get<bool>();
      h.hang_times = p.at("hang_times").get<std::vector<std::int64_t>>();
      h.hung_boot = p.at("hung_boot").get<std::int64_t>();
      h.last_ok = p.at("last_ok").get<std::int64_t>();
      h.deadline_s = p.at("deadline_s").get<double>();
      h.detail = p.at("detail").get<std::string>();
      s.probes[name] = std::move(h);
    }
  }
  if (j.contains("timeline"))
    for (const auto& e : j.at("timeline"))
      s.timeline.push_back({e.at(0).get<std::int64_t>(), e.at(1).get<std::string>()});
}

}  // namespace trainready
