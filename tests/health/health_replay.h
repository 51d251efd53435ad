#pragma once
// The recorded health timelines of tests/data/health (each tNNN a `collect` snapshot, in time
// order) replayed through the sample reader and the state machine, with the state written and
// read back each step as HealthCheckProgram runs do (one process per sample).
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "core/root.h"
#include "health/health_machine.h"
#include "health/health_sample.h"
#include "health/health_state_file.h"

namespace trainready::test {

inline std::string health_timeline(const std::string& name) {
  return std::string(TR_TEST_DATA) + "/health/" + name;
}

inline std::vector<std::string> health_samples(const std::string& name) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(health_timeline(name)))
    if (e.is_directory()) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The first `n` samples (all when n < 0).
inline HealthFacts health_replay(const std::string& name, int n = -1) {
  HealthFacts f;
  int i = 0;
  for (const std::string& dir : health_samples(name)) {
    if (n >= 0 && i++ == n) break;
    FsRoot root(dir);
    f.events = advance_health(f.state, read_health_sample(root));
    f.state = parse_health_state(health_state_json(f.state), "round-trip");
  }
  return f;
}

}  // namespace trainready::test
