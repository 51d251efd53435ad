#pragma once
// The active MTU of each InfiniBand / RoCE port a run's queue pairs use, as NCCL prints it when
// it connects (NCCL_DEBUG_SUBSYS including NET):
//   2.3 - 2.19        "NET/IB: Dev %d Port %d qpn %d mtu %d LID %d" (or "... GID %ld (...)")
//   2.20 - 2.29.3     "NET/IB: NCCL Dev %d IbDev %d Port %d qpn %d mtu %d ..." ("NCCL MergedDev"
//                     for a virtual device)
//   2.29.7 and later  "NET/IB: ncclIbConnect: NCCL Dev %d IbDev %d Port %d qp_num %d mtu %d ..."
// (transport/net_ib.cu v2.3.7-1; net_ib.cc v2.4.8-1 .. v2.28.9-1; net_ib/connect.cc:644 @
// v2.29.2-1, :958-968 @ v2.30.7-1). The number is the port's ibv_mtu (1 = 256 bytes .. 5 =
// 4096): qpInfo.mtu = portAttr.active_mtu before 2.20, devInfo->mtu = the device's
// portAttr.active_mtu from 2.20. From 2.29.2 accepting a connection from a port of smaller MTU
// lowers that device's active_mtu for good (connect.cc:838 @ v2.29.2-1, :1240 @ v2.30.7-1), so
// a port's later lines may print the peer's MTU: a port's own MTU is the largest it printed.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
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

// The ports of a log with the largest MTU each printed (the first line that printed it), and
// every MTU value printed. At most kPortCap ports are kept; the ones past it are counted, and an
// MTU value only they printed is kept with its first line, so a mismatch is never lost.
class NcclIbMtus {
 public:
  static constexpr std::size_t kPortCap = 16384;
  void add(const std::string& host, const IbQpMtu& q, const std::function<LogLine()>& line);
  // The kept ports, then one entry per MTU value no kept port has as its largest.
  std::vector<NcclIbPortMtu> finish();
  std::uint64_t folded() const { return folded_; }

 private:
  std::map<std::string, NcclIbPortMtu> ports_;  // "host\nport" -> the port
  std::map<int, NcclIbPortMtu> first_of_mtu_;   // at most 5: enum ibv_mtu
  std::set<std::string> folded_ports_;          // "host\nport", counted once each
  std::uint64_t folded_ = 0;
};

}  // namespace trainready
