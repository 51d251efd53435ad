#include "health/health_sample.h"

#include <charconv>
#include <ctime>

#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "facts/health_facts.h"
#include "parsers/kernel_log.h"
#include "probes/probes.h"

namespace trainready {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return s.substr(i);
}

// sysfs prints "4: ACTIVE" (state) and "5: LinkUp" (phys_state): the word after the colon.
std::string state_word(const std::string& raw) {
  const std::string t = trim(raw);
  const std::size_t colon = t.find(':');
  return colon == std::string::npos ? t : trim(t.substr(colon + 1));
}

std::int64_t sample_time(const Root& root) {
  if (root.is_live()) return static_cast<std::int64_t>(std::time(nullptr));
  const FileRead m = root.read_file(kSnapManifest);
  const std::string where = root.display(kSnapManifest);
  if (!m.ok())
    throw InputError(where, 0,
                     "a health sample needs the time the snapshot was taken: " +
                         (m.error.empty() ? std::string("missing") : m.error) +
                         " (write snapshots with `trainready collect`)");
  const nlohmann::json j = nlohmann::json::parse(m.data, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("collected_at") || !j["collected_at"].is_string())
    throw InputError(where, 0, "expected a JSON object with \"collected_at\" (an ISO 8601 time)");
  KernelLogClock clock;
  const std::int64_t t = kernel_log_time(j["collected_at"].get<std::string>(), clock);
  if (t == 0)
    throw InputError(where, 0,
                     "\"collected_at\" is not a time trainready can place (expected e.g. "
                     "2026-11-29T00:00:00Z)");
  return t;
}

}  // namespace

std::vector<PortSample> read_health_ports(const Root& root) {
  std::vector<PortSample> out;
  const std::string base = "/sys/class/infiniband";
  const DirList devs = root.list_dir(base);
  for (const std::string& dev : devs.entries) {
    const std::string pdir = base + "/" + dev + "/ports";
    const DirList ports = root.list_dir(pdir);
    for (const std::string& port : ports.entries) {
      const std::string dir = pdir + "/" + port;
      PortSample p;
      p.key = dev + "/" + port;
      p.where = root.display(dir);
      if (FileRead r = root.read_file(dir + "/state"); r.ok()) p.state = state_word(r.data);
      if (FileRead r = root.read_file(dir + "/phys_state"); r.ok())
        p.phys_state = state_word(r.data);
      for (std::string_view name : kHealthCounters) {
        const std::string path = dir + "/counters/" + std::string(name);
        const FileRead r = root.read_file(path);
        if (!r.ok()) continue;
        const std::string v = trim(r.data);
        std::uint64_t n = 0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (ec != std::errc() || end != v.data() + v.size() || v.empty())
          throw InputError(
              root.display(path), 1,
              "expected a counter (a non-negative integer), got '" + v.substr(0, 40) + "'");
        p.counters[std::string(name)] = n;
      }
      if (!p.state.empty()) out.push_back(std::move(p));
    }
  }
  return out;
}

HealthSample read_health_sample(const Root& root) {
  HealthSample s;
  s.source = root.display("/");
  s.time = sample_time(root);
  const FileRead st = root.read_file("/proc/stat", std::size_t{1} << 20);
  if (st.ok())
    if (auto b = parse_proc_stat_btime(st.data)) s.boot_time = *b;
  s.ports = read_health_ports(root);
  s.kernel_log = probe_kernel_log(root);
  s.gpus = probe_gpus(root, ProbeOptions{});
  if (!root.is_live()) {
    const FileRead m = root.read_file(kSnapImds, kLargeFileLimit);
    const nlohmann::json j =
        m.ok() ? nlohmann::json::parse(m.data, nullptr, false) : nlohmann::json();
    if (j.is_object() && j.contains("compute") && j["compute"].is_object()) {
      const nlohmann::json& c = j["compute"];
      if (c.contains("resourceId") && c["resourceId"].is_string())
        s.resource_id = c["resourceId"].get<std::string>();
      if (c.contains("vmId") && c["vmId"].is_string()) s.vm_id = c["vmId"].get<std::string>();
    }
  }
  return s;
}

}  // namespace trainready
