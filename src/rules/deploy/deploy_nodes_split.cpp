// deploy-nodes-split: deployed nodes of one cluster (IMDS documents, az output) in different
// placement groups or scale sets, or outside any: they do not share one InfiniBand fabric.
#include <map>

#include "queries/deployment_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class DeployNodesSplit final : public Rule {
 public:
  std::string_view id() const override { return "deploy-nodes-split"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Deployed nodes in different placement groups or scale sets";
  }
  RuleScope scope() const override { return RuleScope::kDeployment; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    std::vector<const DeploymentResource*> nodes;
    for (const auto& r : ctx.deployment->resources) {
      if (r.deployed && r.kind == ResourceKind::kVirtualMachine) nodes.push_back(&r);
    }
    if (nodes.size() < 2) return out;
    split(
        nodes, "placementGroupId",
        [](const DeploymentResource& r) -> const Setting<std::string>& {
          return r.live->placement_group_id;
        },
        &out);
    split(
        nodes, "vmScaleSetName",
        [](const DeploymentResource& r) -> const Setting<std::string>& {
          return r.live->vm_scale_set_name;
        },
        &out);
    return out;
  }

 private:
  template <class Get>
  void split(const std::vector<const DeploymentResource*>& nodes, const std::string& field, Get get,
             RuleOutcome* out) const {
    std::map<std::string, std::vector<const DeploymentResource*>> by;
    std::size_t with_field = 0;
    for (const auto* n : nodes) {
      const Setting<std::string>& s = get(*n);
      if (!s.is_known()) continue;  // az output has no placementGroupId
      ++with_field;
      by[s.value].push_back(n);
    }
    if (with_field < 2 || by.size() < 2) return;
    std::string msg = std::to_string(with_field) + " nodes span " + std::to_string(by.size()) +
                      " values of " + field;
    if (by.count("") > 0) msg += " (" + std::to_string(by[""].size()) + " with none)";
    Finding f = finding(msg);
    for (const auto& [value, members] : by) {
      std::string names;
      for (std::size_t i = 0; i < members.size() && i < 4; ++i)
        names += (i > 0 ? ", " : "") + members[i]->name;
      if (members.size() > 4) names += ", ...";
      f.evidence.push_back({field + " = \"" + value + "\": " + names, get(*members[0]).where});
    }
    f.cause =
        "Nodes in different placement groups or scale sets are on different InfiniBand "
        "fabrics or partition keys (an empty value means the VM is in none): NCCL "
        "between them hangs or falls back to NET/Socket.";
    f.fix =
        "Run the job on nodes of one scale set and one placement group (IMDS "
        "compute.placementGroupId equal on every node); redeploy the odd ones into it.";
    const DeploymentResource& at = *by.rbegin()->second.front();
    out->findings.push_back(deployment_finding(std::move(f), at, get(at).where));
  }
};

}  // namespace

std::unique_ptr<Rule> make_deploy_nodes_split() { return std::make_unique<DeployNodesSplit>(); }

}  // namespace trainready
