// The systemd services the node-health anchors watch (CycleCloud healthagent's
// SystemdServiceCheck: munge, slurmd, slurmctld, nvidia-imex, nvidia-persistenced, ...; GPUd's
// fabric-manager component): is the unit installed, enabled at boot, and is its daemon running.
// Whether the node's kind needs one is the rule's question (service-not-running). Running is
// read from process names, not from systemd (no D-Bus through a Root, and a snapshot has the
// /proc status files): /proc/<pid>/status Name is the kernel's comm, cut at 15 characters.
#include <algorithm>
#include <utility>
#include <vector>

#include "probes/probes.h"

namespace trainready {

// unit, daemon process name as /proc shows it (15 characters at most).
const std::vector<std::pair<std::string, std::string>>& watched_services() {
  static const std::vector<std::pair<std::string, std::string>> k = {
      // NVIDIA Fabric Manager user guide: the service runs /usr/bin/nv-fabricmanager.
      {"nvidia-fabricmanager.service", "nv-fabricmanage"},
      // NVIDIA driver persistence daemon, /usr/bin/nvidia-persistenced.
      {"nvidia-persistenced.service", "nvidia-persiste"},
      {"nvidia-imex.service", "nvidia-imex"},
      {"slurmd.service", "slurmd"},
      {"slurmctld.service", "slurmctld"},
      // MUNGE's unit runs /usr/sbin/munged.
      {"munge.service", "munged"},
  };
  return k;
}

Fact<ServiceFacts> probe_services(const Root& root, const Fact<ProcessFacts>& processes) {
  static const char* const kUnitDirs[] = {"/etc/systemd/system", "/usr/lib/systemd/system",
                                          "/lib/systemd/system"};
  const std::string etc = "/etc/systemd/system";
  const Provenance where{root.display(etc), 0};
  ServiceFacts f;
  f.processes_known = processes.ok();
  if (!processes.ok()) f.processes_why = processes.describe();
  // The *.wants directories of /etc/systemd/system: where `systemctl enable` links a unit.
  std::vector<std::string> wants;
  const DirList etc_list = root.list_dir(etc);
  if (etc_list.ok())
    for (const std::string& e : etc_list.entries)
      if (e.size() > 6 && e.compare(e.size() - 6, 6, ".wants") == 0) wants.push_back(e);
  bool any_dir = etc_list.ok();
  for (const char* dir : kUnitDirs) any_dir = any_dir || root.list_dir(dir).ok();
  for (const auto& [unit, process] : watched_services()) {
    ServiceState s;
    s.unit = unit;
    s.process = process;
    // Read, not listed: `collect` copies what the probes read, so a snapshot keeps the unit
    // files and the enablement links this looked at (a directory listing is not copied).
    for (const char* dir : kUnitDirs) {
      const std::string path = std::string(dir) + "/" + unit;
      if (root.read_file(path).ok()) {
        s.installed = true;
        s.unit_file = root.display(path);
        break;
      }
    }
    for (const std::string& w : wants) {
      const std::string link = etc + "/" + w + "/" + unit;
      if (root.read_link(link).ok()) {
        s.enabled = true;
        s.enabled_where = {root.display(link), 0};
        break;
      }
    }
    if (processes.ok())
      s.running = std::binary_search(processes->names.begin(), processes->names.end(), process);
    f.services.push_back(std::move(s));
  }
  if (!any_dir)
    return Fact<ServiceFacts>::missing(root.is_live() ? "no systemd unit directory readable"
                                                      : "the snapshot has no systemd unit "
                                                        "directories",
                                       where);
  return Fact<ServiceFacts>::present(std::move(f), where);
}

}  // namespace trainready
