#include "facts/deployment_facts.h"

namespace trainready {

const char* resource_kind_name(ResourceKind k) {
  switch (k) {
    case ResourceKind::kVirtualMachine:
      return "virtual machine";
    case ResourceKind::kScaleSet:
      return "scale set";
    case ResourceKind::kAvailabilitySet:
      return "availability set";
    case ResourceKind::kAksNodePool:
      return "AKS node pool";
    case ResourceKind::kVirtualNetwork:
      return "virtual network";
    case ResourceKind::kSubnet:
      return "subnet";
    case ResourceKind::kManagedLustre:
      return "Azure Managed Lustre file system";
  }
  return "resource";
}

}  // namespace trainready
