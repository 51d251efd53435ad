#include "catalog/vm_network.h"

namespace trainready {

double vm_network_gbytes_per_s(const SkuEntry& sku, double ib_efficiency,
                               double ethernet_efficiency) {
  return sku.has_infiniband() ? sku.ib_ports * sku.ib_rate_gbits_per_s / 8.0 * ib_efficiency
                              : sku.frontend_nic_gbits_per_s / 8.0 * ethernet_efficiency;
}

}  // namespace trainready
