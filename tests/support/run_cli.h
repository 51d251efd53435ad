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

// A python3 that has jsonschema: Debian's (python3-jsonschema from setup-deps), else PATH's;
// "" when neither has it.
std::string python_with_jsonschema();

}  // namespace trainready::test
