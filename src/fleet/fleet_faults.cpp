#include "fleet/fleet_faults.h"

#include <cstdlib>

#include "core/input_error.h"

namespace trainready {

std::map<int, FleetFault> parse_fleet_faults(const std::string& spec) {
  static const std::map<std::string, FleetFault> kKinds = {
      {"silent", FleetFault::kSilent},        {"hang", FleetFault::kHang},
      {"probe-hang", FleetFault::kProbeHang}, {"probe-exit", FleetFault::kProbeExit},
      {"garbage", FleetFault::kGarbage},      {"version", FleetFault::kVersion},
      {"format", FleetFault::kFormat}};
  std::map<int, FleetFault> out;
  std::size_t pos = 0;
  while (pos < spec.size()) {
    std::size_t end = spec.find(',', pos);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const std::size_t colon = item.find(':');
    auto kind = colon == std::string::npos ? kKinds.end() : kKinds.find(item.substr(colon + 1));
    const std::string digits = colon == std::string::npos ? "" : item.substr(0, colon);
    if (kind == kKinds.end() || digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      throw InputError(kFleetFaultEnv, 0,
                       "expected RANK:KIND (KIND: silent, hang, probe-hang, probe-exit, garbage, "
                       "version, format), got \"" +
                           item + "\"");
    out[std::stoi(digits)] = kind->second;
  }
  return out;
}

FleetFault fleet_fault_for(int rank) {
  const char* env = std::getenv(kFleetFaultEnv);
  if (env == nullptr || *env == '\0') return FleetFault::kNone;
  const auto faults = parse_fleet_faults(env);
  auto it = faults.find(rank);
  return it == faults.end() ? FleetFault::kNone : it->second;
}

}  // namespace trainready
