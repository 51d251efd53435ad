#include "support/paths.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace trainready::test {

std::string read_fixture(const std::string& rel) {
  std::ifstream in(fixture(rel), std::ios::binary);
  if (!in) throw std::runtime_error("missing fixture " + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string temp_dir(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path p = fs::temp_directory_path() / ("trainready-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

}  // namespace trainready::test
