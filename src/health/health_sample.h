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
#include "health/health_smi.h"

namespace trainready {

struct PortSample {
  std::string key;                                // "mlx5_0/1"
  std::string state;                              // "ACTIVE" from "4: ACTIVE"
  std::string phys_state;                         // "LinkUp" from "5: LinkUp"
  std::map<std::string, std::uint64_t> counters;  // the kHealthCounters that were readable
  std::string where;                              // the port directory, as the Root names it
};

// A probe the sample ran (or a snapshot recorded) and whether it answered within its deadline.
struct ProbeRun {
  std::string name;  // "nvidia-smi -q"
  bool hung = false;
  double deadline_s = 0;
  double seconds = 0;
  std::string detail;  // in words: "did not return within 30 s; killed" ...
  std::string where;   // the command, or the snapshot manifest that recorded it
};

// How the live sample runs its probes. A snapshot is read, never run.
struct HealthSampleOptions {
  std::string nvidia_smi = "nvidia-smi";  // --nvidia-smi: the program, on PATH or a path
  int probe_deadline_ms = 30000;          // --probe-timeout
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
  // `nvidia-smi -q`: live, run under the deadline; a snapshot's trainready/commands/
  // nvidia-smi-q.txt. Empty when it did not run, hung, or the snapshot has none.
  std::vector<GpuCounterSample> gpu_counters;
  std::vector<ProbeRun> probes;
};

// The IB ports' state, phys_state and kHealthCounters. Throws InputError for a counter file that
// holds something other than a number.
std::vector<PortSample> read_health_ports(const Root& root);

// Throws InputError when a snapshot has no collected_at (its time cannot be placed) or a counter
// file holds something other than a number.
HealthSample read_health_sample(const Root& root, const HealthSampleOptions& opt = {});

}  // namespace trainready
