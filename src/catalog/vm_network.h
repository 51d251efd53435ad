#pragma once
// What one VM's network gives NCCL between VMs: a property of the VM size, shared by the
// nccl-tests expectation and the planner's communication model (docs/busbw.md).
#include "catalog/catalog.h"

namespace trainready {

// GB/s: HCAs x per-HCA rate / 8 x ib_efficiency, or, for sizes without InfiniBand, the
// front-end NIC / 8 x ethernet_efficiency.
double vm_network_gbytes_per_s(const SkuEntry& sku, double ib_efficiency,
                               double ethernet_efficiency);

}  // namespace trainready
