#pragma once
// Runs a diagnostic command (ibstat, nvidia-smi, ...) for `collect`, bounded in time and output
// (the health mode's run_probe underneath).
#include <optional>
#include <string>
#include <vector>

namespace trainready {

struct CommandResult {
  bool found = false;  // the program exists on PATH
  bool timed_out = false;
  int exit_code = -1;
  std::string output;  // stdout (stderr discarded unless merged), at most max_bytes
};

// No shell: argv[0] is looked up on PATH and run with argv as given, in a process group of its
// own; on a timeout the whole group is killed (SIGKILL), so the programs a wrapper script
// started end with it. With merge_stderr, the program's stderr goes to `output` too (scontrol
// says why it failed there).
CommandResult run_command(const std::vector<std::string>& argv, int timeout_ms,
                          std::size_t max_bytes, bool merge_stderr = false);

}  // namespace trainready
