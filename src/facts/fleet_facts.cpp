#include "facts/fleet_facts.h"

#include <cstdio>

namespace trainready {

const char* fleet_rank_state_name(FleetRankState s) {
  switch (s) {
    case FleetRankState::kOk:
      return "ok";
    case FleetRankState::kSilent:
      return "silent";
    case FleetRankState::kStalled:
      return "stalled";
    case FleetRankState::kFailed:
      return "failed";
    case FleetRankState::kUnreadable:
      return "unreadable";
    case FleetRankState::kIncompatible:
      return "incompatible";
  }
  return "silent";
}

}  // namespace trainready

namespace trainready {
std::string fleet_rank_label(const FleetRank& r) {
  return "rank " + std::to_string(r.rank) + (r.host.empty() ? "" : " (" + r.host + ")");
}
std::string fleet_rank_evidence(const FleetRank& r) {
  return "rank " + std::to_string(r.rank) + ": state " + fleet_rank_state_name(r.state) +
         (r.host.empty() ? std::string() : ", host " + r.host) +
         (r.pid > 0 ? ", pid " + std::to_string(r.pid) : std::string());
}
std::string fleet_seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.1f", s);
  return b;
}
}  // namespace trainready
