#pragma once
// The health state machine: a pure function from (state, sample) to the next state and the
// transitions it took, in words. No file is read or written here.
#include <string>
#include <vector>

#include "facts/health_facts.h"
#include "health/health_sample.h"

namespace trainready {

// Advances `state` by `sample`. Throws InputError when the sample is older than the state's last
// one (samples must come in time order).
std::vector<std::string> advance_health(HealthState& state, const HealthSample& sample);

// Clears sticky state: "all", "ports", "xids", or one port "mlx5_0/1". Returns what it cleared,
// in words; throws InputError("--clear") for a key the state does not hold.
std::string clear_health(HealthState& state, const std::string& key);

}  // namespace trainready
