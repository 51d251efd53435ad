#pragma once
// The health state machine: a pure function from (state, sample) to the next state and the
// transitions it took, in words. No file is read or written here.
#include <cstdint>
#include <string>
#include <vector>

#include "facts/health_facts.h"
#include "health/health_sample.h"

namespace trainready {

// Advances `state` by `sample`. Throws InputError when the sample is older than the state's last
// one (samples must come in time order).
std::vector<std::string> advance_health(HealthState& state, const HealthSample& sample);

// One counter advanced by one value at time t: last interval's increase, the last hour's, and a
// restart (no huge delta) when the value goes down. `key`/`name` name it in `events`.
void advance_counter(CounterHistory& c, std::uint64_t v, std::int64_t t, const std::string& key,
                     const std::string& name, std::vector<std::string>& events);

// The GPU series (NVLink, ECC, remap, PCIe replay counters, throttle reasons) and the probes'
// hangs; health_gpu_machine.cpp.
void advance_gpu_series(HealthState& state, const HealthSample& sample,
                        std::vector<std::string>& events);
void advance_probes(HealthState& state, const HealthSample& sample,
                    std::vector<std::string>& events);
void clear_gpu_series(HealthState& state);
std::size_t clear_probes(HealthState& state);

// Clears sticky state: "all", "ports", "xids", "gpus", "probes", or one port "mlx5_0/1". Returns
// what it cleared, in words; throws InputError("--clear") for a key the state does not hold.
std::string clear_health(HealthState& state, const std::string& key);

}  // namespace trainready
