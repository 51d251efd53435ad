#pragma once
// What the user told the rules about a run: the VM size (--sku, over IMDS or the GPU names),
// the number of VMs (--nodes) and the share of the InfiniBand line rate expected (--efficiency).
#include <optional>
#include <string>

#include "catalog/catalog.h"

namespace trainready {

struct RunOptions {
  std::optional<std::string> sku;            // --sku
  std::optional<int> nodes;                  // --nodes
  double efficiency = kDefaultIbEfficiency;  // --efficiency
  double ethernet_efficiency = kDefaultEthernetEfficiency;
};

}  // namespace trainready
