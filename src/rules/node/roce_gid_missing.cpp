// roce-gid-missing: a RoCE port in show_gids has no RoCE v2 GID carrying an IP address, so RoCE
// v2 (routable, what NCCL and UCX pick by default) has no source GID on it.
#include <map>
#include <utility>

#include "queries/rdma_link_guess.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

bool link_local(const std::string& gid) { return gid.rfind("fe80:", 0) == 0; }

class RoceGidMissing final : public Rule {
 public:
  std::string_view id() const override { return "roce-gid-missing"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "RoCE port without a routable RoCE v2 GID"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.rdma_net.ok() || n.rdma_net->gids.empty())
      return RuleOutcome::does_not_apply("no show_gids capture given (doctor --capture FILE)");
    // (device, port) -> its rows
    std::map<std::pair<std::string, int>, std::vector<const RoceGid*>> ports;
    for (const RoceGid& g : n.rdma_net->gids) ports[{g.device, g.port}].push_back(&g);
    RuleOutcome out;
    std::map<int, int> v2_ipv4_index_count;  // GID index of the IPv4 RoCE v2 entry -> ports
    for (const auto& [key, rows] : ports) {
      const std::string& netdev = rows.front()->netdev;
      // IPoIB ports carry InfiniBand GIDs; an unknown name is judged: show_gids lists RoCE
      // versions (v1/v2) only for RoCE ports.
      if (link_by_name(key.first, netdev) == RdmaLinkGuess::kInfiniband) continue;
      const RoceGid* v2_routable = nullptr;
      for (const RoceGid* g : rows) {
        if (g->version == "v2" && !link_local(g->gid)) {
          v2_routable = g;
          if (!g->ipv4.empty()) ++v2_ipv4_index_count[g->index];
          break;
        }
      }
      if (v2_routable != nullptr) continue;
      Finding f = finding("RoCE port " + key.first + "/" + std::to_string(key.second) + " (" +
                          netdev + ") has no RoCE v2 GID with an IP address");
      f.node = n.label;
      for (std::size_t i = 0; i < rows.size() && i < 4; ++i)
        f.evidence.push_back({"index " + std::to_string(rows[i]->index) + " " + rows[i]->gid + " " +
                                  rows[i]->version +
                                  (rows[i]->ipv4.empty() ? "" : " " + rows[i]->ipv4),
                              rows[i]->where});
      f.cause =
          "A RoCE v2 GID exists for each IP address of the netdev; with only link-local "
          "(fe80::) or RoCE v1 entries the netdev has no IP address, so NCCL/UCX cannot "
          "pick a routable RoCE v2 GID (NCCL_IB_GID_INDEX / NCCL_IB_ROCE_VERSION_NUM) and "
          "connections to other nodes fail or fall back.";
      f.fix = "Give " + netdev +
              " its IP address (netplan / NetworkManager / the cloud's NIC config) and rerun "
              "`show_gids`: an IPv4-mapped v2 entry (::ffff:a.b.c.d) should appear; point "
              "NCCL_IB_GID_INDEX at it if set. Sources: NVIDIA NCCL environment variables "
              "(NCCL_IB_GID_INDEX, NCCL_IB_ROCE_VERSION_NUM); Mellanox show_gids.";
      out.findings.push_back(std::move(f));
    }
    if (v2_ipv4_index_count.size() > 1)
      out.notes.push_back(
          "the IPv4 RoCE v2 GID sits at different indexes on different ports: "
          "one NCCL_IB_GID_INDEX does not fit all of them (NCCL 2.21+ selects "
          "per port when it is unset)");
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_roce_gid_missing() { return std::make_unique<RoceGidMissing>(); }

}  // namespace trainready
