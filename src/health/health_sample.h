#pragma once
// One health sample: what a node's sysfs and kernel log say now. A source: it reads through a
// Root (the live node or a `collect` snapshot) and never judges.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/root.h"
#include "facts/node_facts.h"

namespace trainready {

struct PortSample {
  std::string key;                                // "mlx5_0/1"
  std::string state;                              // "ACTIVE" from "4: ACTIVE"
  std::string phys_state;                         // "LinkUp" from "5: LinkUp"
  std::map<std::string, std::uint64_t> counters;  // the kHealthCounters that were readable
  std::string where;                              // the port directory, as the Root names it
};

struct HealthSample {
  std::int64_t time = 0;       // seconds since the epoch: now, or the snapshot's collected_at
  std::int64_t boot_time = 0;  // /proc/stat btime; 0 unknown
  std::vector<PortSample> ports;
  Fact<KernelLogFacts> kernel_log;
  Fact<GpuFacts> gpus;  // NVML (live) or trainready/nvml.json (snapshot)
  std::string source;   // how the Root names "/"
  // compute.resourceId / compute.vmId of a snapshot's IMDS response (never fetched here).
  std::string resource_id;
  std::string vm_id;
};

// The IB ports' state, phys_state and kHealthCounters. Throws InputError for a counter file that
// holds something other than a number.
std::vector<PortSample> read_health_ports(const Root& root);

// Throws InputError when a snapshot has no collected_at (its time cannot be placed) or a counter
// file holds something other than a number.
HealthSample read_health_sample(const Root& root);

}  // namespace trainready
