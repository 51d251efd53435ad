#include "facts/nccl_run_facts.h"

#include <algorithm>

namespace trainready {

int NcclRunFacts::max_comm_nodes() const {
  int best = 0;
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

namespace {
std::string peer_address(std::string p) {  // "10.2.0.5<33092>" -> "10.2.0.5"; fe80::1%ib0 kept
  std::size_t lt = p.find('<');
  if (lt != std::string::npos) p.resize(lt);
  return p;
}
}  // namespace

bool NcclRunFacts::multi_node() const {
  if (max_comm_nodes() > 1) return true;
  if (hosts().size() > 1 || host_count > 1) return true;
  // A peer named in an error that is not one of the hosts' own addresses is another machine.
  std::set<std::string> own;
  for (const auto& [h, p] : host_profiles) own.insert(p.addresses.begin(), p.addresses.end());
  for (NcclProblem k : {NcclProblem::kIbCompletionError, NcclProblem::kConnectionFailed}) {
    auto it = issues.find(k);
    if (it == issues.end()) continue;
    for (const std::string& peer : it->second.peers) {
      const std::string a = peer_address(peer);
      if (!a.empty() && !own.count(a) && a.rfind("127.", 0) != 0) return true;
    }
  }
  // NET connections between ranks only happen across nodes (or with P2P and SHM both off).
  for (const auto& [k, t] : transports) {
    if (t.kind == TransportKind::kNetIb || t.kind == TransportKind::kNetSocket ||
        t.kind == TransportKind::kNetOther || t.kind == TransportKind::kCollNet)
      return true;
  }
  return false;
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
