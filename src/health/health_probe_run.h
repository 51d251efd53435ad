#pragma once
// A probe run under a deadline for `trainready health`. Unlike collect's run_command, it never
// waits for the program past the deadline: a program stuck in the NVIDIA driver sleeps
// uninterruptibly, SIGKILL does not end it, and waiting for it would hang the health check
// itself (a HealthCheckProgram that never returns). After the deadline the process group is
// killed, reaped for at most a short grace, and otherwise left to init.
#include <string>
#include <vector>

namespace trainready {

struct ProbeResult {
  bool found = false;      // the program exists (PATH or a path)
  bool timed_out = false;  // did not finish within the deadline
  bool reaped = true;      // false: still not gone a grace after SIGKILL (stuck in the kernel)
  int exit_code = -1;
  double seconds = 0;  // how long it ran (up to the deadline)
  std::string output;  // stdout, at most max_bytes
};

// With merge_stderr the program's stderr goes to `output` too; otherwise it is discarded.
// collect's run_command is this, so every command trainready runs has one bounded runner.
ProbeResult run_probe(const std::vector<std::string>& argv, int deadline_ms, std::size_t max_bytes,
                      bool merge_stderr = false);

}  // namespace trainready
