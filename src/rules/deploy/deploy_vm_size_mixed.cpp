// deploy-vm-size-mixed: deployed nodes of one cluster with different VM sizes; NCCL and the
// job run at the pace of the slowest, and sizes with and without InfiniBand cannot share it.
#include <map>

#include "core/text.h"
#include "queries/deployment_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class DeployVmSizeMixed final : public Rule {
 public:
  std::string_view id() const override { return "deploy-vm-size-mixed"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "Deployed nodes of mixed VM sizes"; }
  RuleScope scope() const override { return RuleScope::kDeployment; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    std::map<std::string, std::vector<const DeploymentResource*>> by;
    for (const auto& r : ctx.deployment->resources) {
      if (!r.deployed || r.kind != ResourceKind::kVirtualMachine || !r.vm_size.is_known()) continue;
      by[to_lower(r.vm_size.value)].push_back(&r);
    }
    if (by.size() < 2) return out;
    std::size_t total = 0;
    for (const auto& [size, members] : by) total += members.size();
    Finding f = finding(std::to_string(total) + " deployed nodes have " +
                        std::to_string(by.size()) + " different VM sizes");
    bool ib_mix = false;
    bool first_ib = has_infiniband(*by.begin()->second.front(), *ctx.catalog);
    for (const auto& [size, members] : by) {
      if (has_infiniband(*members.front(), *ctx.catalog) != first_ib) ib_mix = true;
      f.evidence.push_back({members.front()->vm_size.value + ": " + std::to_string(members.size()) +
                                " node(s), first " + members.front()->name,
                            members.front()->vm_size.where});
    }
    if (ib_mix) f.severity = Severity::kError;
    f.cause = ib_mix ? "Some sizes have InfiniBand and some do not: NCCL cannot use InfiniBand "
                       "between them and the whole job runs at socket speed."
                     : "Different sizes have different GPUs and networks; a synchronous job runs "
                       "at the pace of the slowest node.";
    f.fix =
        "Run the job on nodes of one size (one scale set); move the odd nodes to a pool of "
        "their own.";
    const DeploymentResource& at = *by.rbegin()->second.front();
    out.findings.push_back(deployment_finding(std::move(f), at, at.vm_size.where));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_deploy_vm_size_mixed() { return std::make_unique<DeployVmSizeMixed>(); }

}  // namespace trainready
