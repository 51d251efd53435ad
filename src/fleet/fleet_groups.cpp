#include "fleet/fleet_groups.h"

namespace trainready {

int gather_group_size(int requested, int size) {
  if (requested == 0) return size > kOneLevelMaxRanks ? kDefaultGatherGroup : 1;
  return requested < 1 ? 1 : requested;
}

}  // namespace trainready
