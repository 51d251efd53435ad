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
// v2.4.6-1) and the process's namespaces, the same on every machine's host namespace. So a peer
// on a device that another rank of the printing host holds, where that host's ranks each hold
// their own device, is a rank on a second machine NCCL took for this one (NVIDIA/nccl#187).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "facts/nccl_run_facts.h"

namespace trainready {

// One "Ring NN : a[b] -> c[d] via T" message: the printing rank and device, the peer's, and
// whether T is an intra-node transport (P2P, SHM). Empty when the message is not one, or when a
// bracket holds a bus id (2.5+, hexadecimal, 4 digits or more) instead of a device number.
struct RingConnection {
  int rank = -1, dev = -1, peer = -1, peer_dev = -1;
  bool intra_node = false;
};
std::optional<RingConnection> parse_ring_connection(std::string_view message);

class NcclRingClaims {
 public:
  static constexpr std::size_t kClaims = 256;
  // A connection message of stream `s` (a map node of NcclRunFacts::streams: its address is
  // stable), the line it came from.
  void add(const RingConnection& c, const NcclStream* s, const LogLine& line);
  // After the host labels are final (NcclStream::host): the first clash, if any.
  std::optional<NcclHostDeviceClash> finish() const;

 private:
  struct Own {
    int rank = -1;
    bool several = false;  // printed as two ranks: several communicators, numbering differs
    int dev = -1;
    std::uint64_t seq = 0;  // order of first appearance
    LogLine line;
  };
  std::uint64_t next_seq_ = 0;
  std::unordered_map<const NcclStream*, Own> own_;
  struct Claim {
    const NcclStream* s;
    int peer, peer_dev;
    LogLine line;
  };
  std::vector<Claim> claims_;
};

}  // namespace trainready
