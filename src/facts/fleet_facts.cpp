#include "facts/fleet_facts.h"

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
}  // namespace trainready
