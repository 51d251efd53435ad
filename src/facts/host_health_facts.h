#pragma once
// Host checks the node-health anchors run and the doctor did not (issue 32, item 4): process
// states, the services a node's kind needs, InfiniBand character devices, IOMMU / ATS / ACS,
// and the hypervisor (ACS is judged on bare metal only). Probes fill them; rules only read them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/fact.h"

namespace trainready {

// One process in state D (uninterruptible) or Z (zombie), from /proc/<pid>/status.
struct ProcessEntry {
  int pid = 0;
  std::string name;  // Name: (the kernel truncates it to 15 characters)
  char state = '?';  // 'D' or 'Z'
  // SIGKILL or SIGTERM pending at the process level (ShdPnd bits 9 and 15): a D-state task that
  // has been told to die and cannot (CycleCloud healthagent's "unkillable" test).
  bool kill_pending = false;
  std::string wchan;  // /proc/<pid>/wchan: what it waits on; "" when not readable
  Provenance where;
};

struct ProcessFacts {
  int scanned = 0;  // status files read
  std::vector<ProcessEntry> zombies;
  std::vector<ProcessEntry> uninterruptible;  // state D
  std::vector<std::string> names;             // Name: of every process read, sorted, unique
  std::optional<long> pid_max;                // /proc/sys/kernel/pid_max
  std::optional<int> cpus;                    // CPUs online (/sys/devices/system/cpu/online)
};

// A systemd service the node may need. The probe reports what is there; the rule decides
// whether the node's kind needs it.
struct ServiceState {
  std::string unit;        // "slurmd.service"
  std::string process;     // the daemon's process name as /proc shows it ("nv-fabricmanage")
  bool installed = false;  // a unit file in /etc/systemd/system, /usr/lib/systemd/system, /lib/...
  bool enabled = false;    // linked into a *.target.wants directory of /etc/systemd/system
  std::string unit_file;   // where the unit file was found
  Provenance enabled_where;
  bool running = false;  // a process of that name exists
};

struct ServiceFacts {
  std::vector<ServiceState> services;
  bool processes_known = false;  // false: running is not known (no process names)
  std::string processes_why;
  const ServiceState* find(const std::string& unit) const {
    for (const ServiceState& s : services)
      if (s.unit == unit) return &s;
    return nullptr;
  }
};

// /dev/infiniband and the sysfs classes that map its character devices to HCAs and ports:
// uverbsN (one per device: ibv_open_device needs it), umadN (one per port: the MAD tools and
// the subnet manager need it).
struct IbCharDev {
  std::string name;           // uverbs0, umad3
  std::string ibdev;          // mlx5_ib0 (/sys/class/infiniband_verbs/uverbs0/ibdev)
  int port = 0;               // umad only (/sys/class/infiniband_mad/umad3/port)
  bool node_present = false;  // /dev/infiniband/<name> exists
  Provenance where;
};

struct IbCharDevFacts {
  std::vector<IbCharDev> verbs;
  std::vector<IbCharDev> mads;
  std::vector<std::string> dev_entries;  // what /dev/infiniband lists
  bool dev_dir_present = false;
  Provenance dev_where;
};

// Whether the node is a virtual machine: ACS is a bare-metal setting ("Virtual machines require
// ACS to function", GPUd components/pci).
struct VirtInfo {
  bool virtual_machine = false;
  bool known = false;      // false: nothing said either way
  std::string hypervisor;  // "Microsoft Hyper-V", "KVM", "xen", "" when not named
  std::string evidence;    // what said so
  Provenance where;
};

// IOMMU, ATS and ACS per PCI function the rules care about (GPUs, NICs, and the bridges above
// them for ACS), from sysfs and the function's PCI configuration space.
struct PciIsolation {
  std::string address;
  std::string role;  // "gpu", "nic", "bridge"
  std::optional<std::string> iommu_group;
  std::optional<std::string> iommu_type;  // /sys/kernel/iommu_groups/N/type: identity, DMA, DMA-FQ
  std::optional<bool> ats_enabled;        // ATS capability's control bit 15
  std::optional<std::uint16_t> acs_control;  // ACS capability's control register
  bool config_short = false;  // config space shorter than 4096 bytes: extended caps unread
  Provenance where;
};

struct PciIsolationFacts {
  bool iommu_present = false;  // /sys/class/iommu has an entry
  std::vector<PciIsolation> functions;
};

// One check of Azure CycleCloud healthagent's `health -s` (its last background status):
// {"<module>": {"<Check>": {"status": "OK"|"Warning"|"Error"|"NA", "message", "description",
// "recommendations", "last_update", "ghr_category", "error_count", ...}}} (healthagent/
// reporter.py HealthReport.view, client.py prints json.dumps(response, indent=4)).
struct HealthagentCheck {
  std::string module;  // gpu, systemd, network, kmsg, proc
  std::string name;    // GpuCountCheck, NetworkInterfaceCheck, ...
  std::string status;  // as printed: OK, Warning, Error, NA
  std::string message;
  std::string description;
  std::string recommendations;
  std::string ghr_category;  // Resource.Hpc.Unhealthy.IBPortDown, ...
  std::string last_update;   // "2026-07-13T21:40:08 UTC"
  std::optional<long long> error_count;
  std::vector<std::string> failed_items;  // members with their own "status": "Error" (services)
  Provenance where;
  bool error() const { return status == "Error"; }
  bool warning() const { return status == "Warning"; }
};

struct HealthagentStatus {
  std::vector<HealthagentCheck> checks;
  const HealthagentCheck* find(const std::string& module, const std::string& name) const {
    for (const HealthagentCheck& c : checks)
      if (c.module == module && c.name == name) return &c;
    return nullptr;
  }
};

}  // namespace trainready
