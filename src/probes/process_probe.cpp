// Process states from /proc/<pid>/status, as CycleCloud healthagent's ProcessStateCheck reads
// them (healthagent/process.py @b8c76db): zombies (State Z) and uninterruptible tasks (State D)
// with SIGKILL or SIGTERM pending at the process level (ShdPnd), which the kernel cannot deliver
// (GPUd's os component also counts D-state processes). It also lists every process name, which
// the service probe matches daemons against. Reading is all it does: the rules judge.
#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include "core/text.h"
#include "probes/probes.h"
#include "probes/sysfs_attr.h"

namespace trainready {
namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "0-95" / "0-63,128-191" / "0": CPUs in /sys/devices/system/cpu/online.
std::optional<int> count_cpu_list(std::string_view s) {
  int n = 0;
  std::vector<std::string_view> parts;
  s = trim(s);
  for (std::size_t start = 0;;) {
    const std::size_t comma = s.find(',', start);
    parts.push_back(s.substr(start, comma == std::string_view::npos ? s.npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  for (std::string_view part : parts) {
    part = trim(part);
    if (part.empty()) continue;
    const auto dash = part.find('-');
    auto lo = parse_int(part.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : parse_int(part.substr(dash + 1));
    if (!lo || !hi || *hi < *lo) return std::nullopt;
    n += static_cast<int>(*hi - *lo + 1);
  }
  return n > 0 ? std::optional<int>(n) : std::nullopt;
}

}  // namespace

// One /proc/<pid>/status text: Name, State letter, ShdPnd mask. Public for the tests.
bool read_process_status(std::string_view text, std::string& name, char& state,
                         bool& kill_pending) {
  bool have_state = false;
  kill_pending = false;
  for (std::string_view line : split_lines(text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, colon);
    const std::string_view val = trim(line.substr(colon + 1));
    if (key == "Name") {
      name = std::string(val);
    } else if (key == "State" && !val.empty()) {
      state = val.front();
      have_state = true;
    } else if (key == "ShdPnd") {
      // Signal n is bit n-1: SIGKILL (9) bit 8, SIGTERM (15) bit 14.
      // 16 hex digits (64 signals); only the low 15 bits matter, so read the last 4 digits.
      const std::string_view low = val.size() > 4 ? val.substr(val.size() - 4) : val;
      if (auto mask = parse_int(low, 16)) kill_pending = (*mask & ((1 << 8) | (1 << 14))) != 0;
    }
  }
  return have_state;
}

Fact<ProcessFacts> probe_processes(const Root& root) {
  const Provenance where{root.display("/proc") + "/*/status", 0};
  const DirList procs = root.list_dir("/proc");
  if (procs.status == ReadStatus::kMissing)
    return Fact<ProcessFacts>::missing(
        root.is_live() ? "/proc is not mounted" : "the snapshot has no /proc", where);
  if (!procs.ok()) return Fact<ProcessFacts>::unreadable(procs.error, where);
  ProcessFacts f;
  std::vector<std::string> names;
  for (const std::string& pid : procs.entries) {
    if (!all_digits(pid)) continue;
    const std::string path = "/proc/" + pid + "/status";
    const FileRead r = root.read_file(path);
    if (!r.ok()) continue;  // the process ended between the listing and the read
    std::string name;
    char state = '?';
    bool kill_pending = false;
    if (!read_process_status(r.data, name, state, kill_pending)) continue;
    ++f.scanned;
    names.push_back(name);
    if (state != 'Z' && state != 'D') continue;
    ProcessEntry e;
    e.pid = static_cast<int>(parse_int(pid).value_or(0));
    e.name = name;
    e.state = state;
    e.kill_pending = kill_pending;
    if (state == 'D') {
      if (Fact<std::string> w = read_attr(root, "/proc/" + pid + "/wchan"); w.ok())
        e.wchan = w.value;
    }
    e.where = {root.display(path), 0};
    (state == 'Z' ? f.zombies : f.uninterruptible).push_back(std::move(e));
  }
  if (f.scanned == 0)
    return Fact<ProcessFacts>::missing(root.is_live() ? "no /proc/<pid>/status readable"
                                                      : "the snapshot records no process states",
                                       where);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  f.names = std::move(names);
  if (auto v = parse_int(read_attr(root, "/proc/sys/kernel/pid_max").value); v && *v > 0)
    f.pid_max = static_cast<long>(*v);
  if (Fact<std::string> c = read_attr(root, "/sys/devices/system/cpu/online"); c.ok())
    f.cpus = count_cpu_list(c.value);
  return Fact<ProcessFacts>::present(std::move(f), where);
}

}  // namespace trainready
