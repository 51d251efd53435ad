#pragma once
// Runs an external checker (xmllint, promtool, the Chromium check) from a test and keeps its
// output for the failure message. A checker that is missing is a failure, never a skip:
// scripts/setup-deps.sh installs each one.
#include <string>

namespace trainready::test {

struct ToolResult {
  int status = -1;  // exit status, -1 when it did not run or died
  std::string output;
};

ToolResult run_tool(const std::string& command);
bool have_tool(const std::string& name);  // on PATH
std::string write_temp_file(const std::string& dir, const std::string& name,
                            const std::string& content);
// tests/tools/<name>
std::string test_tool(const std::string& name);

}  // namespace trainready::test
