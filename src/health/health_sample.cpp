#include "health/health_sample.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

#include "core/input_error.h"
#include "core/utf8.h"
#include "facts/health_facts.h"
#include "health/health_probe_run.h"
#include "parsers/kernel_log.h"
#include "parsers/nvidia_smi_query.h"
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

constexpr const char* kSmiCapture = "/trainready/commands/nvidia-smi-q.txt";

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 10 ? "%.1f s" : "%.0f s", s);
  return buf;
}

// Live: `nvidia-smi -q` under the deadline. A hang is a ProbeRun; output that is not an NVSMI
// log (a driver that cannot be reached prints a message instead) leaves the counters empty.
void run_smi(HealthSample& s, const HealthSampleOptions& opt) {
  const ProbeResult r = run_probe({opt.nvidia_smi, "-q"}, opt.probe_deadline_ms, kLargeFileLimit);
  if (!r.found) return;  // no nvidia-smi: no GPU counters, not a hang
  ProbeRun p;
  p.name = "nvidia-smi -q";
  p.deadline_s = opt.probe_deadline_ms / 1000.0;
  p.seconds = r.seconds;
  p.where = opt.nvidia_smi + " -q";
  if (r.timed_out) {
    p.hung = true;
    p.detail = "did not return within " + seconds_text(p.deadline_s) + "; killed" +
               (r.reaped ? "" : ", and still not gone 0.5 s after SIGKILL (stuck in the kernel)");
  } else if (looks_like_nvidia_smi_query(r.output)) {
    s.gpu_counters = parse_health_smi_query(r.output, p.where);
    p.detail = "answered in " + seconds_text(r.seconds);
  } else {
    p.detail = "answered in " + seconds_text(r.seconds) + " without an NVSMI log (exit " +
               std::to_string(r.exit_code) + ")";
  }
  s.probes.push_back(std::move(p));
}

// A snapshot: the `nvidia-smi -q` capture, and every nvidia-smi command the manifest records
// as timed out (collect runs them under its own deadline).
void read_smi(const Root& root, HealthSample& s, const nlohmann::json& manifest) {
  if (FileRead r = root.read_file(kSmiCapture, kLargeFileLimit); r.ok())
    s.gpu_counters = parse_health_smi_query(r.data, root.display(kSmiCapture));
  if (!manifest.is_object() || !manifest.contains("commands") || !manifest["commands"].is_array())
    return;
  for (const nlohmann::json& c : manifest["commands"]) {
    if (!c.is_object() || !c.contains("argv") || !c["argv"].is_string()) continue;
    const std::string argv = c["argv"].get<std::string>();
    if (argv.rfind("nvidia-smi", 0) != 0) continue;
    const bool hung =
        c.contains("timed_out") && c["timed_out"].is_boolean() && c["timed_out"].get<bool>();
    ProbeRun p;
    p.name = "nvidia-smi -q";  // one probe: any nvidia-smi that hangs says the same
    p.hung = hung;
    p.where = root.display(kSnapManifest) + " (commands: " + clip_text(argv, 60) + ")";
    p.detail = hung ? "`" + clip_text(argv, 60) + "` timed out when the snapshot was collected"
                    : "`" + clip_text(argv, 60) + "` answered when the snapshot was collected";
    // Keep one run per probe: a hang wins over an answer.
    auto it = std::find_if(s.probes.begin(), s.probes.end(),
                           [&](const ProbeRun& q) { return q.name == p.name; });
    if (it == s.probes.end())
      s.probes.push_back(std::move(p));
    else if (hung && !it->hung)
      *it = std::move(p);
  }
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

HealthSample read_health_sample(const Root& root, const HealthSampleOptions& opt) {
  HealthSample s;
  s.source = root.display("/");
  s.time = sample_time(root);
  const FileRead st = root.read_file("/proc/stat", std::size_t{1} << 20);
  if (st.ok())
    if (auto b = parse_proc_stat_btime(st.data)) s.boot_time = *b;
  s.ports = read_health_ports(root);
  s.kernel_log = probe_kernel_log(root);
  s.gpus = probe_gpus(root, ProbeOptions{});
  if (root.is_live()) {
    run_smi(s, opt);
  } else {
    const FileRead mf = root.read_file(kSnapManifest, kLargeFileLimit);
    read_smi(root, s, mf.ok() ? nlohmann::json::parse(mf.data, nullptr, false) : nlohmann::json());
  }
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
