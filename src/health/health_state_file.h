#pragma once
// The health state file: versioned JSON, written atomically (beside, fsync, rename), so a
// HealthCheckProgram killed mid-write leaves the previous state whole.
#include <string>

#include "facts/health_facts.h"

namespace trainready {

std::string health_state_json(const HealthState& s);
// The state parsed from `text`; throws InputError naming `where` for anything that is not a state
// file of a version this build reads.
HealthState parse_health_state(const std::string& text, const std::string& where);
// The state in `path`; a path that does not exist is a fresh state (the first sample).
HealthState load_health_state(const std::string& path);
// Throws InputError naming the path when it cannot be written.
void save_health_state(const std::string& path, const HealthState& s);

}  // namespace trainready
