#include "support/paths.h"

#include <gtest/gtest.h>
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

namespace {

std::filesystem::path process_temp_root() {
  return std::filesystem::temp_directory_path() / ("trainready-test-" + std::to_string(::getpid()));
}

// Removes this test process's temporary tree when the tests end, pass or fail.
class TempCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(process_temp_root(), ec);
  }
};

const bool kCleanupRegistered = (::testing::AddGlobalTestEnvironment(new TempCleanup), true);

}  // namespace

std::string temp_dir(const std::string& name) {
  namespace fs = std::filesystem;
  (void)kCleanupRegistered;
  fs::path p = process_temp_root() / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p.string();
}

}  // namespace trainready::test
