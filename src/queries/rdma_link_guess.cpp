#include "queries/rdma_link_guess.h"

namespace trainready {

RdmaLinkGuess link_by_name(std::string_view device, std::string_view netdev) {
  if (device.find("_bond") != std::string_view::npos) return RdmaLinkGuess::kRoce;
  if (netdev.rfind("ib", 0) == 0) return RdmaLinkGuess::kInfiniband;
  for (std::string_view p : {"eth", "en", "bond"})
    if (netdev.rfind(p, 0) == 0) return RdmaLinkGuess::kRoce;
  return RdmaLinkGuess::kUnknown;
}

}  // namespace trainready
