#include "report/tool_run.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace trainready::test {

ToolResult run_tool(const std::string& command) {
  ToolResult r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

bool have_tool(const std::string& name) {
  return run_tool("command -v " + name + " >/dev/null").status == 0;
}

std::string write_temp_file(const std::string& dir, const std::string& name,
                            const std::string& content) {
  const std::string path = dir + "/" + name;
  std::ofstream out(path, std::ios::binary);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path);
  return path;
}

std::string test_tool(const std::string& name) {
  return std::string(TR_TEST_DATA) + "/../tools/" + name;
}

}  // namespace trainready::test
