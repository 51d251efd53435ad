#pragma once
// How the VMs of a job are placed. InfiniBand reaches only VMs of one scale set with
// singlePlacementGroup=true (or one availability set): 100 VMs by default, 300 after a support
// request; beyond that the job spans several InfiniBand domains joined by Ethernet.
#include <string>

#include "catalog/catalog.h"

namespace trainready {

inline constexpr int kPlacementGroupDefaultVms = 100;
inline constexpr int kPlacementGroupRaisedVms = 300;
inline constexpr int kAvailabilitySetMaxVms = 200;

enum class PlacementLimit { kSingleVm, kNoInfiniband, kWithinDefault, kSupportRequest, kSplit };

struct Placement {
  int vms = 1;
  PlacementLimit limit = PlacementLimit::kSingleVm;
  int domains = 1;         // InfiniBand domains (placement groups)
  int vms_per_domain = 1;  // in the largest
  std::string advice;      // what to deploy
  std::string source;
};

Placement plan_placement(const SkuEntry& sku, int vms);
const char* to_string(PlacementLimit l);

}  // namespace trainready
