#pragma once
// The state file's GPU-series, probe and timeline parts (health_state_gpu.cpp), so
// health_state_file.cpp stays about the file. Optional on read: a state written before these
// parts existed reads as having none.
#include <string>

#include <nlohmann/json.hpp>

#include "facts/health_facts.h"

namespace trainready {

nlohmann::json counter_history_json(const CounterHistory& c);
CounterHistory parse_counter_history(const nlohmann::json& c);

void put_gpu_series(nlohmann::json& j, const HealthState& s);
// Throws nlohmann::json::exception on a damaged part (the caller names the file).
void get_gpu_series(const nlohmann::json& j, HealthState& s);

}  // namespace trainready
