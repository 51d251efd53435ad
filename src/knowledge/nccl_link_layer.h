#pragma once
// The link layer of the RDMA ports a NCCL log shows, from NCCL's own lines: the devices NCCL
// listed ("NET/IB : Using [0]mlx5_0:1/RoCE"), the GIDs of its queue-pair lines (printed for
// RoCE ports only), and the GIDs its completion-error WARN carries (printed only when the port's
// link layer is Ethernet: src/transport/net_ib.cc:1903-1911 @ v2.21.5-1).
#include <optional>

#include "core/finding.h"
#include "facts/nccl_run_facts.h"

namespace trainready {

enum class NcclLinkLayer { kUnknown, kInfiniband, kRoce, kBoth };

struct NcclLinkLayerShown {
  NcclLinkLayer layer = NcclLinkLayer::kUnknown;
  std::optional<LogLine> roce_line;  // the first line that shows RoCE, when one does
};

NcclLinkLayerShown nccl_link_layer_shown(const NcclRunFacts& f);

}  // namespace trainready
