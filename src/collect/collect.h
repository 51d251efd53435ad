#pragma once
// `trainready collect OUT/`: a snapshot of everything the doctor reads, written atomically.
#include <string>
#include <vector>

#include "probes/probe_options.h"

namespace trainready {

struct CollectOptions {
  std::string out_dir;
  std::string source_root = "/";  // another root can be re-collected (tests, re-scrubbing)
  bool scrub = false;
  bool run_commands = true;  // ibstat, nvidia-smi, ofed_info where they exist
  int command_timeout_ms = 10000;
  ProbeOptions probe;
  std::string tool_version;
};

struct CollectSummary {
  std::string out_dir;
  std::size_t files = 0;
  std::vector<std::string> commands;  // "ibstat: exit 0"
  std::vector<std::string> notes;     // what could not be collected and why
};

// Throws InputError (bad OUT) or std::runtime_error (I/O); OUT is then left untouched.
CollectSummary collect_snapshot(const CollectOptions& opt);

}  // namespace trainready
