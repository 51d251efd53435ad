#include "plan/placement_model.h"

#include "catalog/ib_placement.h"

namespace trainready {

const char* to_string(PlacementLimit l) {
  switch (l) {
    case PlacementLimit::kSingleVm:
      return "single-vm";
    case PlacementLimit::kNoInfiniband:
      return "no-infiniband";
    case PlacementLimit::kWithinDefault:
      return "within-default";
    case PlacementLimit::kSupportRequest:
      return "support-request";
    case PlacementLimit::kSplit:
      return "split";
  }
  return "?";
}

Placement plan_placement(const SkuEntry& sku, int vms) {
  Placement p;
  p.vms = vms;
  p.vms_per_domain = vms;
  p.source = std::string(kIbPlacementSources) + "; virtual-machine-scale-sets-placement-groups";
  const std::string n = std::to_string(vms);
  if (vms == 1) {
    p.limit = PlacementLimit::kSingleVm;
    p.advice = "one VM: no placement constraint";
  } else if (!sku.has_infiniband()) {
    p.limit = PlacementLimit::kNoInfiniband;
    p.advice = n +
               " VMs without InfiniBand: NCCL runs over the front-end Ethernet (TCP). Put them "
               "in one proximity placement group to keep latency low";
  } else if (vms <= kPlacementGroupDefaultVms) {
    p.limit = PlacementLimit::kWithinDefault;
    p.advice =
        n + " VMs as " + kIbOneGroupShort + ": InfiniBand reaches only VMs of one placement group";
  } else if (vms <= kPlacementGroupRaisedVms) {
    p.limit = PlacementLimit::kSupportRequest;
    p.advice = "one Uniform scale set of " + n +
               " VMs with singlePlacementGroup=true: above the default " +
               std::to_string(kPlacementGroupDefaultVms) +
               " VMs per InfiniBand placement group, "
               "so file a (free) support request to raise it to " +
               std::to_string(kPlacementGroupRaisedVms) + " first";
  } else {
    p.limit = PlacementLimit::kSplit;
    p.domains = (vms + kPlacementGroupRaisedVms - 1) / kPlacementGroupRaisedVms;
    p.vms_per_domain = (vms + p.domains - 1) / p.domains;
    p.advice = n + " VMs exceed one InfiniBand placement group (" +
               std::to_string(kPlacementGroupRaisedVms) +
               " after a support request): " + std::to_string(p.domains) + " scale sets of up to " +
               std::to_string(p.vms_per_domain) +
               " VMs, each its own InfiniBand domain; between "
               "them traffic crosses the front-end Ethernet, so keep tensor and pipeline "
               "parallelism inside a domain and expect the gradient sync to slow";
  }
  return p;
}

}  // namespace trainready
