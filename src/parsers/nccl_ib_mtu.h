#pragma once
// The active MTU of each InfiniBand / RoCE port a run's queue pairs use, as NCCL prints it when
// it connects (NCCL_DEBUG_SUBSYS including NET):
//   2.3 - 2.19  "NET/IB: Dev %d Port %d qpn %d mtu %d LID %d" (or "... mtu %d GID %ld (...)")
//   2.20 - 2.28 "NET/IB: NCCL Dev %d IbDev %d Port %d qpn %d mtu %d ..." ("NCCL MergedDev" for a
//               virtual device)
//   2.29+       "NET/IB: ncclIbConnect: NCCL Dev %d IbDev %d Port %d qp_num %d mtu %d ..."
// (transport/net_ib.cu v2.3.7-1; net_ib.cc v2.4.8-1 .. v2.28.9-1; net_ib/connect.cc v2.29.2-1 ..
// v2.30.7-1). The number is the port's ibv_mtu (1 = 256 bytes .. 5 = 4096): qpInfo.mtu =
// portAttr.active_mtu before 2.20, devInfo->mtu = ibDev->portAttr.active_mtu from 2.20.
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "facts/nccl_run_facts.h"

namespace trainready {

struct IbQpMtu {
  std::string_view port;  // "IbDev 0 Port 1" (2.20+) or "Dev 0 Port 1", a view of the message
  int mtu_bytes = 0;      // 256 .. 4096
};
// The port and MTU of one queue-pair line; nullopt when the message is not one, or its MTU is
// not an ibv_mtu value.
std::optional<IbQpMtu> parse_ib_qp_mtu(std::string_view message);

// Distinct (host, port, MTU) triples of a log, each with the first line that printed it.
class NcclIbMtus {
 public:
  static constexpr std::size_t kCap = 256;
  void add(const std::string& host, const IbQpMtu& q, const std::function<LogLine()>& line);
  std::vector<NcclIbPortMtu> finish() { return std::move(out_); }

 private:
  std::set<std::tuple<std::string, std::string, int>, std::less<>> seen_;
  std::vector<NcclIbPortMtu> out_;
};

}  // namespace trainready
