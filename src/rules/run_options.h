#pragma once
// What the user told the rules about a run: the VM size (--sku, over IMDS or the GPU names),
// the number of VMs (--nodes), the share of the InfiniBand line rate expected (--efficiency) and
// how far back a Xid is current (--xid-window).
#include <optional>
#include <string>

#include "catalog/catalog.h"

namespace trainready {

inline constexpr double kDefaultXidWindowSeconds = 2 * 3600.0;

struct RunOptions {
  std::optional<std::string> sku;            // --sku
  std::optional<int> nodes;                  // --nodes
  double efficiency = kDefaultIbEfficiency;  // --efficiency
  double ethernet_efficiency = kDefaultEthernetEfficiency;
  // --xid-window: how far back a Xid counts as current, seconds. AzNHC's check_gpu_xid uses 2 h
  // (customTests/azure_gpu_xid.nhc: time_threshold=2, hours).
  double xid_window_s = kDefaultXidWindowSeconds;
};

}  // namespace trainready
