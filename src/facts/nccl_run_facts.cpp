#include "facts/nccl_run_facts.h"

#include <algorithm>
#include <cstdio>

namespace trainready {

const NcclCommunicator* NcclRunFacts::comm_beyond_log() const {
  const NcclCommunicator* best = nullptr;
  std::size_t most = 0;
  for (const auto& [id, c] : comms) {
    const std::size_t seen = c.ranks_in_log();
    const std::size_t n = c.nranks > 0 ? static_cast<std::size_t>(c.nranks) : 0;
    if (seen > 0 && n > seen && n - seen > most) {
      most = n - seen;
      best = &c;
    }
  }
  return best;
}

int NcclRunFacts::max_comm_nodes() const {
  int best = nnodes_printed;
  for (const auto& [id, c] : comms) {
    int n = c.nnodes;
    if (n == 0) {
      std::set<std::string> h;
      for (const auto& [r, host] : c.rank_hosts) h.insert(host);
      n = static_cast<int>(h.size());
    }
    best = std::max(best, n);
  }
  return best;
}

const NcclGraphSearch* NcclRunFacts::ring_search() const {
  const NcclGraphSearch* best = nullptr;
  for (const auto& g : searches) {
    if (g.pattern != 4) continue;
    if (!best || g.channels * g.bw_intra < best->channels * best->bw_intra) best = &g;
  }
  return best;
}

namespace {
std::string peer_address(std::string p) {  // "10.2.0.5<33092>" -> "10.2.0.5"; fe80::1%ib0 kept
  std::size_t lt = p.find('<');
  if (lt != std::string::npos) p.resize(lt);
  return p;
}
}  // namespace

std::string NcclRunFacts::multi_node_evidence() const {
  if (int n = max_comm_nodes(); n > 1) return std::to_string(n) + " nodes in one communicator";
  const std::size_t h = std::max<std::size_t>(hosts().size(), host_count);
  if (h > 1) return std::to_string(h) + " hosts";
  // A peer named in an error that is not one of the hosts' own addresses is another machine.
  std::set<std::string> own;
  for (const auto& [name, p] : host_profiles) own.insert(p.addresses.begin(), p.addresses.end());
  for (NcclProblem k : {NcclProblem::kIbCompletionError, NcclProblem::kConnectionFailed}) {
    auto it = issues.find(k);
    if (it == issues.end()) continue;
    for (const std::string& peer : it->second.peers) {
      const std::string a = peer_address(peer);
      if (!a.empty() && !own.count(a) && a.rfind("127.", 0) != 0)
        return "a peer on another address (" + a + ") in " +
               (k == NcclProblem::kIbCompletionError ? "an IB completion error"
                                                     : "a failed connection");
    }
  }
  // NET connections between ranks only happen across nodes (or with P2P and SHM both off).
  for (const auto& [k, t] : transports) {
    if (t.kind == TransportKind::kNetIb || t.kind == TransportKind::kNetSocket ||
        t.kind == TransportKind::kNetOther || t.kind == TransportKind::kCollNet)
      return "connections via " + t.label;
  }
  if (host_device_clash)
    return "rank " + std::to_string(host_device_clash->peer) + " on a CUDA device that rank " +
           std::to_string(host_device_clash->holder) + " of " + host_device_clash->host + " holds";
  // NCCL's own count of nodes (every communicator's "nNodes 1") says one machine: the launcher's
  // host list and the IB readings below do not overrule it.
  if (nnodes_printed == 1) return "";
  // A queue pair NCCL's IB transport set up to a peer, or a completion on one, is a NET/IB
  // connection too, where the
  // log kept only the failure (NVIDIA/nccl#622: one rank's ibv_modify_qp WARN and its trail) and
  // names no peer address (an own or loopback one was judged above), unless P2P and SHM are both
  // off, when NCCL uses NET between the GPUs of one host too.
  const auto off = [&](const char* name) {
    auto e = env.find(name);
    return e != env.end() && e->second.value == "1";
  };
  const auto no_peer = [&](NcclProblem k) {
    auto it = issues.find(k);
    return it != issues.end() && it->second.peers.empty();
  };
  if (!(off("NCCL_P2P_DISABLE") && off("NCCL_SHM_DISABLE"))) {
    if (no_peer(NcclProblem::kModifyQpFailed))
      return "an InfiniBand queue pair to a peer (ibv_modify_qp failed)";
    if (no_peer(NcclProblem::kIbCompletionError))
      return "an InfiniBand connection to a peer (a completion error on it)";
  }
  // The launcher put the ranks on several hosts, whatever names their lines print.
  if (framework.launcher_hosts)
    return "the launcher's hosts (" + framework.launcher_hosts->what + ", line " +
           std::to_string(framework.launcher_hosts->where.line) + ")";
  return "";
}

std::string search_pattern_name(int p) {
  switch (p) {
    case 1:
      return "balanced tree";
    case 2:
      return "split tree";
    case 3:
      return "tree";
    case 4:
      return "ring";
    case 5:
      return "NVLS";
    case 6:
      return "CollNet direct";
    default:
      return "pattern " + std::to_string(p);
  }
}

std::string describe_search(const NcclGraphSearch& g) {
  auto gb = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, v >= 100 ? "%.0f GB/s" : v >= 10 ? "%.1f GB/s" : "%.2f GB/s", v);
    return std::string(b);
  };
  std::string s = search_pattern_name(g.pattern) + ": " + std::to_string(g.channels) +
                  " channel(s) x " + gb(g.bw_intra) + " intra / " + gb(g.bw_inter) +
                  " inter per channel, path " + g.type_intra + "/" + g.type_inter;
  if (g.cross_nic) s += ", crossNic " + std::to_string(g.cross_nic);
  if (!g.comm.empty()) s += " (comm " + g.comm + ")";
  return s;
}

std::string transport_kind_name(TransportKind k) {
  switch (k) {
    case TransportKind::kP2p:
      return "p2p";
    case TransportKind::kShm:
      return "shm";
    case TransportKind::kNetIb:
      return "net_ib";
    case TransportKind::kNetSocket:
      return "net_socket";
    case TransportKind::kNetOther:
      return "net_plugin";
    case TransportKind::kCollNet:
      return "collnet";
    case TransportKind::kUnknown:
      break;
  }
  return "unknown";
}

std::string problem_name(NcclProblem p) {
  switch (p) {
    case NcclProblem::kIbCompletionError:
      return "ib_completion_error";
    case NcclProblem::kConnectionFailed:
      return "connection_failed";
    case NcclProblem::kSystemError:
      return "system_error";
    case NcclProblem::kModifyQpFailed:
      return "ibv_modify_qp_failed";
    case NcclProblem::kVersionMismatch:
      return "version_mismatch";
    case NcclProblem::kCudaError:
      return "cuda_error";
    case NcclProblem::kInternalError:
      return "internal_error";
    case NcclProblem::kOtherWarning:
      break;
  }
  return "warning";
}

}  // namespace trainready
