#include "health/health_state_file.h"

#include <sys/stat.h>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "health/health_state_parts.h"

namespace trainready {
namespace {

using nlohmann::json;

constexpr const char* kSchema = "trainready-health-state";
constexpr std::size_t kMaxStateBytes = std::size_t{16} * 1024 * 1024;

PortCondition condition_of(const std::string& s, const std::string& where) {
  for (PortCondition c : {PortCondition::kOk, PortCondition::kRecovered, PortCondition::kDown,
                          PortCondition::kDropped, PortCondition::kFlapping})
    if (to_string(c) == s) return c;
  throw InputError(where, 0, "unknown port condition '" + s.substr(0, 40) + "'");
}

}  // namespace

std::string health_state_json(const HealthState& s) {
  json ports = json::object();
  for (const auto& [key, h] : s.ports) {
    json counters = json::object();
    for (const auto& [name, c] : h.counters) counters[name] = counter_history_json(c);
    ports[key] = {{"state", h.state},
                  {"phys_state", h.phys_state},
                  {"last_time", h.last_time},
                  {"down_since", h.down_since},
                  {"down_since_link_downed", h.down_since_link_downed},
                  {"down_persistent", h.down_persistent},
                  {"flaps", h.flaps},
                  {"condition", std::string(to_string(h.condition))},
                  {"condition_since", h.condition_since},
                  {"recovered_at", h.recovered_at},
                  {"where", h.where},
                  {"counters", counters}};
  }
  json xids = json::array();
  for (const XidRecord& r : s.xids)
    xids.push_back({{"code", r.code},
                    {"pci", r.pci},
                    {"time", r.time},
                    {"boot", r.boot},
                    {"line", r.line},
                    {"where", r.where}});
  json gpus = json::object();
  for (const auto& [bus, g] : s.gpus)
    gpus[bus] = {{"name", g.name},
                 {"remap_pending", g.remap_pending},
                 {"remap_failure", g.remap_failure},
                 {"pending_boots", g.pending_boots},
                 {"since", g.since}};
  json j = {{"schema", kSchema},
            {"version", s.version},
            {"updated_at", s.updated_at},
            {"boot_time", s.boot_time},
            {"samples", s.samples},
            {"ports", ports},
            {"xids", xids},
            {"xid_seen", s.xid_seen},
            {"gpus", gpus}};
  put_gpu_series(j, s);
  // Replace invalid UTF-8 (a kernel-log line) rather than throw.
  return j.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

HealthState parse_health_state(const std::string& text, const std::string& where) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(where, 0,
                     std::string("not a health state file (") + e.what() +
                         "); remove it, or run `trainready health --state FILE --clear all` to "
                         "start over");
  }
  const std::string reset =
      "; remove it, or run `trainready health --state FILE --clear all` to start over";
  if (!j.is_object() || j.value("schema", std::string()) != kSchema)
    throw InputError(
        where, 0,
        std::string("not a health state file (no \"schema\": \"") + kSchema + "\")" + reset);
  if (!j.contains("version") || !j["version"].is_number_integer())
    throw InputError(where, 0, "the state file has no integer \"version\"" + reset);
  const int version = j["version"].get<int>();
  if (version != kHealthStateVersion)
    throw InputError(where, 0,
                     "state file version " + std::to_string(version) + ", this build reads " +
                         std::to_string(kHealthStateVersion) + reset);
  HealthState s;
  try {
    s.updated_at = j.at("updated_at").get<std::int64_t>();
    s.boot_time = j.at("boot_time").get<std::int64_t>();
    s.samples = j.at("samples").get<int>();
    for (const auto& [key, p] : j.at("ports").items()) {
      PortHistory h;
      h.state = p.at("state").get<std::string>();
      h.phys_state = p.at("phys_state").get<std::string>();
      h.last_time = p.at("last_time").get<std::int64_t>();
      h.down_since = p.at("down_since").get<std::int64_t>();
      h.down_since_link_downed = p.at("down_since_link_downed").get<std::uint64_t>();
      h.down_persistent = p.at("down_persistent").get<bool>();
      h.flaps = p.at("flaps").get<std::vector<std::int64_t>>();
      h.condition = condition_of(p.at("condition").get<std::string>(), where);
      h.condition_since = p.at("condition_since").get<std::int64_t>();
      h.recovered_at = p.at("recovered_at").get<std::int64_t>();
      h.where = p.at("where").get<std::string>();
      for (const auto& [name, c] : p.at("counters").items())
        h.counters[name] = parse_counter_history(c);
      s.ports[key] = std::move(h);
    }
    for (const auto& x : j.at("xids")) {
      XidRecord r;
      r.code = x.at("code").get<int>();
      r.pci = x.at("pci").get<std::string>();
      r.time = x.at("time").get<std::int64_t>();
      r.boot = x.at("boot").get<std::int64_t>();
      r.line = x.at("line").get<std::string>();
      r.where = x.at("where").get<std::string>();
      s.xids.push_back(std::move(r));
    }
    s.xid_seen = j.at("xid_seen").get<std::vector<std::string>>();
    for (const auto& [bus, g] : j.at("gpus").items()) {
      GpuHistory h;
      h.name = g.at("name").get<std::string>();
      h.remap_pending = g.at("remap_pending").get<bool>();
      h.remap_failure = g.at("remap_failure").get<bool>();
      h.pending_boots = g.at("pending_boots").get<std::vector<std::int64_t>>();
      h.since = g.at("since").get<std::int64_t>();
      s.gpus[bus] = std::move(h);
    }
    get_gpu_series(j, s);
  } catch (const json::exception& e) {
    throw InputError(where, 0, std::string("the state file is damaged (") + e.what() + ")" + reset);
  }
  return s;
}

HealthState load_health_state(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return HealthState{};
    throw InputError(path, 0, std::string("cannot read the state file: ") + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) throw InputError(path, 0, "the state file is not a regular file");
  if (static_cast<std::size_t>(st.st_size) > kMaxStateBytes)
    throw InputError(path, 0, "the state file is larger than 16 MiB: not one trainready wrote");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(path, 0, std::string("cannot open the state file: ") + std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  return parse_health_state(buf.str(), path);
}

void save_health_state(const std::string& path, const HealthState& s) {
  try {
    write_file_atomically(path, health_state_json(s));
  } catch (const std::runtime_error& e) {
    throw InputError(path, 0, std::string("cannot write the state file: ") + e.what());
  }
}

}  // namespace trainready
