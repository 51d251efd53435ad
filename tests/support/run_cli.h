#pragma once
// Runs the trainready binary as a user would, capturing stdout, stderr and the exit code.
#include <string>
#include <vector>

namespace trainready::test {

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

// `stdin_path` feeds the command's standard input (default: /dev/null).
CliResult run_trainready(const std::vector<std::string>& args, const std::string& env = "",
                         const std::string& stdin_path = "");

}  // namespace trainready::test
