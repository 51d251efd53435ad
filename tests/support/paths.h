#pragma once
#include <string>

namespace trainready::test {

inline std::string fixture(const std::string& rel) {
  return std::string(TR_TEST_DATA) + "/fixtures/" + rel;
}
// Hand-written NCCL logs (tests/data/nccl-debug-synthetic/README.md says what each stands for).
inline std::string synthetic_log(const std::string& name) {
  return std::string(TR_TEST_DATA) + "/nccl-debug-synthetic/" + name;
}
inline std::string example(const std::string& rel) { return std::string(TR_EXAMPLES) + "/" + rel; }
std::string read_fixture(const std::string& rel);
// A fresh empty directory under the test temp dir.
std::string temp_dir(const std::string& name);

}  // namespace trainready::test
