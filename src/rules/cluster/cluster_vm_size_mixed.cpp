// cluster-vm-size-mixed: the nodes of one job are of different VM sizes.
#include "queries/node_grouping.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class ClusterVmSizeMixed final : public Rule {
 public:
  std::string_view id() const override { return "cluster-vm-size-mixed"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "Mixed VM sizes in one job"; }
  RuleScope scope() const override { return RuleScope::kCluster; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    Grouping g = group_nodes(*ctx.cluster, DigestKey::kVmSize);
    if (g.nodes_by_value.empty())
      return RuleOutcome::skip("no node's VM size is known: " +
                               (g.unknown.empty() ? std::string() : g.unknown.front()));
    RuleOutcome out;
    out.notes = g.unknown;
    if (g.nodes_by_value.size() < 2) return out;
    Finding f = finding("nodes of different VM sizes: " + describe_groups(g));
    f.nodes = odd_nodes(g);
    f.evidence = g.evidence;
    f.cause =
        "Different sizes have different GPUs, HCA counts and rates, and cannot share one scale set "
        "or "
        "InfiniBand partition; synchronous training runs at the pace of the slowest node and NCCL "
        "may pick "
        "different rails per node.";
    f.fix = "Use one VM size for all nodes of a job (one scale set).";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_cluster_vm_size_mixed() {
  return std::make_unique<ClusterVmSizeMixed>();
}

}  // namespace trainready
