#include "knowledge/nccl_link_layer.h"

namespace trainready {

NcclLinkLayerShown nccl_link_layer_shown(const NcclRunFacts& f) {
  NcclLinkLayerShown s;
  bool ib = false, roce = false;
  for (const NcclNetDevice& d : f.net_devices) {
    if (d.link_layer == "RoCE" || d.link_layer == "ETH" || d.link_layer == "Ethernet") {
      if (!roce) s.roce_line = d.example;
      roce = true;
    } else if (d.link_layer == "IB" || d.link_layer == "InfiniBand") {
      ib = true;
    }
  }
  if (f.roce_gid_link_local + f.roce_gid_other > 0) {
    if (!roce && f.roce_link_local_gid) s.roce_line = *f.roce_link_local_gid;
    roce = true;
  }
  if (auto it = f.issues.find(NcclProblem::kIbCompletionError); it != f.issues.end()) {
    for (const LogLine& l : it->second.examples) {
      if (l.text.find(" localGid ") == std::string::npos) continue;
      if (!roce) s.roce_line = l;
      roce = true;
      break;
    }
  }
  s.layer = ib && roce ? NcclLinkLayer::kBoth
            : ib       ? NcclLinkLayer::kInfiniband
            : roce     ? NcclLinkLayer::kRoce
                       : NcclLinkLayer::kUnknown;
  return s;
}

}  // namespace trainready
