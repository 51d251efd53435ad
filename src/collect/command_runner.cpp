#include "collect/command_runner.h"

#include <utility>

#include "health/health_probe_run.h"

namespace trainready {

// One bounded runner for every command trainready starts (health/health_probe_run.h): its own
// process group, killed whole at the deadline, and never waited for past it (a program that
// closes its output and then sits in the driver would otherwise hang collect).
CommandResult run_command(const std::vector<std::string>& argv, int timeout_ms,
                          std::size_t max_bytes, bool merge_stderr) {
  ProbeResult p = run_probe(argv, timeout_ms, max_bytes, merge_stderr);
  CommandResult r;
  r.found = p.found;
  r.timed_out = p.timed_out;
  r.exit_code = p.exit_code;
  r.output = std::move(p.output);
  return r;
}

}  // namespace trainready
