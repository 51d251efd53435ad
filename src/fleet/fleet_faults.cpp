#include "fleet/fleet_faults.h"

#include <cstdlib>

#include "core/input_error.h"
#include "core/rank_faults.h"

namespace trainready {

std::map<int, FleetFault> parse_fleet_faults(const std::string& spec) {
  static const std::map<std::string, FleetFault> kKinds = {
      {"silent", FleetFault::kSilent},        {"hang", FleetFault::kHang},
      {"probe-hang", FleetFault::kProbeHang}, {"probe-exit", FleetFault::kProbeExit},
      {"garbage", FleetFault::kGarbage},      {"version", FleetFault::kVersion},
      {"format", FleetFault::kFormat}};
  return parse_rank_faults(spec, kKinds, kFleetFaultEnv);
}

FleetFault fleet_fault_for(int rank) {
  const char* env = std::getenv(kFleetFaultEnv);
  if (env == nullptr || *env == '\0') return FleetFault::kNone;
  const auto faults = parse_fleet_faults(env);
  auto it = faults.find(rank);
  return it == faults.end() ? FleetFault::kNone : it->second;
}

}  // namespace trainready
