// cluster-pkey-mismatch: the nodes' InfiniBand ports carry different partition keys, so they
// are in different InfiniBand partitions and cannot talk to each other.
#include "catalog/ib_placement.h"
#include "queries/node_grouping.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class ClusterPkeyMismatch final : public Rule {
 public:
  std::string_view id() const override { return "cluster-pkey-mismatch"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "InfiniBand partition keys differ between nodes";
  }
  RuleScope scope() const override { return RuleScope::kCluster; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    Grouping g = group_nodes(*ctx.cluster, DigestKey::kPkeys);
    RuleOutcome out;
    out.notes = g.unknown;
    if (g.nodes_by_value.empty()) {
      return RuleOutcome::skip("no node has readable partition keys: " +
                               (g.unknown.empty() ? std::string() : g.unknown.front()));
    }
    if (g.nodes_by_value.size() < 2) return out;
    Finding f = finding("InfiniBand partition keys differ: " + describe_groups(g));
    f.nodes = odd_nodes(g);
    f.evidence = g.evidence;
    f.cause =
        "A partition key (pkey) is the InfiniBand equivalent of a VLAN: ports in different "
        "partitions cannot "
        "exchange traffic. On Azure every scale set (with singlePlacementGroup=true) or "
        "availability set gets "
        "its own partition, so these nodes were deployed into different sets or as standalone VMs. "
        "NCCL hangs at "
        "connection setup or fails with IB completion error 12 (transport retry exceeded).";
    f.fix = std::string("Redeploy the nodes of the job as ") + kIbOneGroupSettings +
            "; nodes from different sets cannot share an InfiniBand job. Sources: " +
            kIbPlacementSources + ".";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_cluster_pkey_mismatch() {
  return std::make_unique<ClusterPkeyMismatch>();
}

}  // namespace trainready
