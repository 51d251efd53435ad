#pragma once
#include <string_view>

namespace trainready {

// What an RDMA port is by its names alone: RoCE for a bonded device ("mlx5_bond_0") or an
// Ethernet-named netdev ("eth*", "en*", "bond*"), InfiniBand for an IPoIB netdev ("ib*"),
// unknown otherwise (a pod's "net1" may be either). A guess the rules state as such; the link
// layer of ibstat / ibstatus / ibv_devinfo, when captured, decides.
enum class RdmaLinkGuess { kRoce, kInfiniband, kUnknown };
RdmaLinkGuess link_by_name(std::string_view device, std::string_view netdev);

}  // namespace trainready
