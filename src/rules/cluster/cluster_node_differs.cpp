// cluster-node-differs: most nodes agree on a hardware or software property and a few do not:
// HCA firmware, InfiniBand port rates and active ports, GPU model and count, PCIe links of GPUs
// and NICs, kernel. Versions, pkeys, placement and VM size have rules of their own (which also
// name the odd nodes out); this one covers what those do not.
#include <algorithm>
#include <vector>

#include "queries/node_grouping.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

struct Property {
  std::string name;
  DigestKey key;  // facts/node_digest.h: the value as queries/node_digest.cpp words it
  std::string consequence;
};

std::vector<Property> properties() {
  return {
      {"HCA firmware", DigestKey::kHcaFirmware,
       "Different ConnectX firmware behaves differently under load (adaptive routing, congestion "
       "control); the odd node can be the slow or flaky one."},
      {"InfiniBand port rates", DigestKey::kIbPortRates,
       "A port that trained at a lower rate (a bad cable or transceiver) makes that node's "
       "rail the slowest link of every collective."},
      {"active InfiniBand ports", DigestKey::kIbActivePorts,
       "A node with fewer active ports has fewer rails: NCCL spreads its traffic over fewer "
       "NICs, or fails to connect the rail that is down."},
      {"GPUs", DigestKey::kGpus,
       "A node with a GPU missing or of another model changes the job's world size or speed; "
       "a GPU that fell off the bus is the usual reason."},
      {"GPU PCIe links", DigestKey::kGpuPcieLinks,
       "A GPU whose PCIe link trained narrower or slower copies to and from the host (and to "
       "its NIC without NVLink) at a fraction of the others' rate."},
      {"NIC PCIe links", DigestKey::kNicPcieLinks,
       "A NIC on a degraded PCIe link cannot reach its line rate: that node's rail is slow."},
      {"kernel", DigestKey::kKernel,
       "Another kernel usually means another image, so drivers and RDMA modules may differ "
       "too."},
  };
}

class ClusterNodeDiffers final : public Rule {
 public:
  std::string_view id() const override { return "cluster-node-differs"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "A few nodes differ from the rest of the cluster";
  }
  RuleScope scope() const override { return RuleScope::kCluster; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    if (ctx.cluster->size() < kMajorityMinNodes)
      return RuleOutcome::does_not_apply("a majority needs at least " +
                                         std::to_string(kMajorityMinNodes) + " nodes");
    RuleOutcome out;
    for (const Property& p : properties()) {
      Grouping g = group_nodes(*ctx.cluster, p.key);
      const std::optional<Majority> m = majority_of(g);
      if (!m || m->differ.empty()) continue;
      Finding f = finding(p.name + ": " + describe_groups(g));
      f.nodes = odd_nodes(g);
      // The odd nodes' evidence, and one majority node's for comparison (not 62 equal lines).
      bool majority_shown = false;
      for (const Evidence& e : g.evidence) {
        const std::string node = e.text.substr(0, e.text.find(": "));
        if (std::find(f.nodes.begin(), f.nodes.end(), node) != f.nodes.end()) {
          f.evidence.push_back(e);
        } else if (!majority_shown) {
          f.evidence.push_back({"(majority) " + e.text, e.where});
          majority_shown = true;
        }
      }
      f.cause = p.consequence;
      f.fix =
          "Compare the odd nodes with a majority node (trainready doctor on both); reimage or "
          "service them, or leave them out of the job until they match.";
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_cluster_node_differs() { return std::make_unique<ClusterNodeDiffers>(); }

}  // namespace trainready
