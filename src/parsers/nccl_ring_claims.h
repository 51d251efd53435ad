#pragma once
// Which CUDA device each rank holds, as NCCL 2.3 - 2.4 printed it on its intra-node connection
// lines, and the first peer that lands on a device another rank of the same host already holds.
//
// NCCL 2.3.7 - 2.4.8 print "Ring %02d : %d[%d] -> %d[%d] via P2P/IPC" (also "P2P/direct
// pointer", "direct shared memory"): each rank with its CUDA device number (transport/p2p.cu,
// shm.cu at v2.3.7-1; p2p.cc, shm.cc at v2.4.8-1). 2.5 prints the bus id there instead
// (p2p.cc at v2.5.6-1), and from 2.5 init refuses two ranks of one host on one GPU ("Duplicate
// GPU detected", init.cc at v2.5.6-1). P2P and SHM only connect ranks NCCL counts as one host
// (same host hash). Before 2.5 that hash is the hostname (up to its first '.' through 2.4.2:
// getHostName in misc/utils.cu at v2.4.2-1; the whole name from 2.4.6: misc/utils.cc at
// v2.4.6-1) and the process's namespaces, the same for every process in a machine's host
// namespaces. So a peer on a device that another rank of the printing host holds, where that
// host's ranks each hold their own device, is a rank on a second machine NCCL took for this one
// (NVIDIA/nccl#187).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "facts/nccl_run_facts.h"

namespace trainready {

// One "Ring NN : ..." connection message: the printing rank and, on P2P / SHM lines, its device
// and the peer's (intra_node); on NET lines (2.3: "Ring %02d : peer -> me via NET/...", 2.4:
// "me -> peer [send]" / "peer -> me [receive]", transport/net.cu, net.cc) the printing rank only.
// Empty when the message is not one, or when a bracket holds a bus id (2.5+, hexadecimal)
// instead of a device number (at most 3 decimal digits; a short bus id that reads as one is told
// apart by the stream's own device).
struct RingConnection {
  int rank = -1, dev = -1, peer = -1, peer_dev = -1;
  bool intra_node = false;
};
std::optional<RingConnection> parse_ring_connection(std::string_view message);

class NcclRingClaims {
 public:
  static constexpr std::size_t kClaims = 4096;  // distinct (stream, peer, device) claims kept
  // A connection message of stream `s` (a map node of NcclRunFacts::streams: its address is
  // stable); `line()` makes the line it came from, called only when the line is kept (a log of
  // millions of connection lines copies a few).
  template <class MakeLine>
  void add(const RingConnection& c, const NcclStream* s, MakeLine&& line) {
    Own* o = own(s, c.rank);
    if (!c.intra_node) return;
    if (o->dev < 0) {
      o->dev = c.dev;
      o->line = line();
    } else if (o->dev != c.dev) {
      o->ranks.insert(-1);  // printed on two devices: nothing it says of devices is kept
    }
    if (claims_.size() < kClaims && claimed_.emplace(s, c.peer, c.peer_dev).second)
      claims_.push_back({s, c.peer, c.peer_dev, line()});
  }
  // The rank a stream has in a communicator it joined (its "comm ... rank N" line): a process
  // printed as two ranks belongs to communicators that number it differently.
  void member(const NcclStream* s, int rank);
  bool any_claim() const { return !claims_.empty(); }
  // After the host labels are final (NcclStream::host): the first clash, if any.
  std::optional<NcclHostDeviceClash> finish() const;

 private:
  struct Own {
    std::set<int> ranks;  // the ranks it printed as (2 at most kept)
    int dev = -1;         // the device its P2P / SHM lines gave it
    std::uint64_t seq = 0;
    LogLine line;  // its first P2P / SHM line
  };
  Own* own(const NcclStream* s, int rank);
  std::uint64_t next_seq_ = 0;
  std::unordered_map<const NcclStream*, Own> own_;
  struct Claim {
    const NcclStream* s;
    int peer, peer_dev;
    LogLine line;
  };
  std::vector<Claim> claims_;
  std::set<std::tuple<const NcclStream*, int, int>> claimed_;
};

}  // namespace trainready
