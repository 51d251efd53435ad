#pragma once
// Runs a diagnostic command (ibstat, nvidia-smi, ...) for `collect`, bounded in time and output.
#include <optional>
#include <string>
#include <vector>

namespace trainready {

struct CommandResult {
  bool found = false;  // the program exists on PATH
  bool timed_out = false;
  int exit_code = -1;
  std::string output;  // stdout (stderr discarded), at most max_bytes
};

CommandResult run_command(const std::vector<std::string>& argv, int timeout_ms,
                          std::size_t max_bytes);

}  // namespace trainready
