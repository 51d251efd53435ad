// cluster-placement-mismatch: IMDS says the nodes are in different scale sets or placement groups.
#include "catalog/ib_placement.h"
#include "queries/node_grouping.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class ClusterPlacementMismatch final : public Rule {
 public:
  std::string_view id() const override { return "cluster-placement-mismatch"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Nodes in different scale sets or placement groups";
  }
  RuleScope scope() const override { return RuleScope::kCluster; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    Grouping sets = group_nodes(*ctx.cluster, DigestKey::kVmssName);
    Grouping groups = group_nodes(*ctx.cluster, DigestKey::kPlacementGroup);
    if (sets.nodes_by_value.empty()) {
      return RuleOutcome::skip("no node has instance metadata: " +
                               (sets.unknown.empty() ? std::string() : sets.unknown.front()));
    }
    RuleOutcome out;
    out.notes = sets.unknown;
    const std::string cause =
        "InfiniBand traffic flows only inside one scale set with singlePlacementGroup=true (one "
        "placement group) or "
        "one availability set; nodes from different sets sit in different InfiniBand partitions. "
        "The job hangs or "
        "falls back to sockets between the groups.";
    const std::string fix =
        std::string(
            "Run the job on nodes of ONE scale set / placement group (check vmScaleSetName and "
            "placementGroupId in IMDS), or redeploy them as ") +
        kIbOneGroupSettings + ". Sources: " + kIbPlacementSources + ".";
    const bool sets_differ = sets.nodes_by_value.size() > 1;
    const bool groups_differ = groups.nodes_by_value.size() > 1;
    if (!sets_differ && !groups_differ) return out;
    std::string msg = "nodes are in different ";
    if (sets_differ) msg += "scale sets (" + describe_groups(sets) + ")";
    if (sets_differ && groups_differ) msg += " and ";
    if (groups_differ) msg += "placement groups (" + describe_groups(groups) + ")";
    Finding f = finding(msg);
    f.nodes = odd_nodes(sets_differ ? sets : groups);
    if (sets_differ) {
      for (Evidence e : sets.evidence) {
        e.text = "vmScaleSetName of " + e.text;
        f.evidence.push_back(std::move(e));
      }
    }
    if (groups_differ) {
      for (Evidence e : groups.evidence) {
        e.text = "placementGroupId of " + e.text;
        f.evidence.push_back(std::move(e));
      }
    }
    f.cause = cause;
    f.fix = fix;
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_cluster_placement_mismatch() {
  return std::make_unique<ClusterPlacementMismatch>();
}

}  // namespace trainready
