// vm-not-in-scale-set: an InfiniBand size that IMDS says is in no scale set.
#include "facts/queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class VmNotInScaleSet final : public Rule {
 public:
  std::string_view id() const override { return "vm-not-in-scale-set"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override { return "InfiniBand VM in no scale set"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.imds.ok()) return RuleOutcome::skip("Azure instance metadata " + n.imds.describe());
    std::string why;
    const SkuEntry* sku = sku_of(n, *ctx.catalog, why);
    RuleOutcome out;
    bool ib = false;
    if (sku != nullptr)
      ib = sku->has_infiniband();
    else if (auto r = n_series_has_rdma(n.imds->vm_size))
      ib = *r;
    else
      return RuleOutcome::skip(why);
    if (!ib || !n.imds->vmss_name.empty()) return out;
    Finding f = finding(n.imds->vm_size + " VM \"" + n.imds->name +
                        "\" is not in a virtual machine scale set");
    f.evidence.push_back({"vmScaleSetName = \"\"", n.imds.where});
    f.evidence.push_back(
        {"placementGroupId = \"" + n.imds->placement_group_id + "\"", n.imds.where});
    f.cause =
        "Azure gives InfiniBand connectivity only among VMs of one scale set with "
        "singlePlacementGroup=true, or "
        "of one availability set. A standalone VM, or one in a different set from its peers, gets "
        "a different "
        "InfiniBand partition key: its ports may be ACTIVE, yet NCCL cannot reach the other nodes "
        "(hang, IB "
        "completion error 12, or a fallback to sockets). Fine if this VM and all its peers share "
        "one "
        "availability set.";
    f.fix =
        "Create the training nodes in one VM scale set (Uniform or Flexible with "
        "platformFaultDomainCount=1) with "
        "singlePlacementGroup=true, at most 100 VMs by default (300 after a support request), or "
        "put all of them "
        "in one availability set (at most 200 VMs). Check with `trainready doctor --root` on each "
        "node's snapshot.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_vm_not_in_scale_set() { return std::make_unique<VmNotInScaleSet>(); }

}  // namespace trainready
