// vm-not-in-scale-set: an InfiniBand size that IMDS says is in no scale set.
#include "catalog/ib_placement.h"
#include "queries/node_queries.h"
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
    const SkuEntry* sku = sku_of(n, ctx, why);
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
        "Azure gives InfiniBand connectivity only among VMs of one placement group: one scale set "
        "that is a single placement group, or one availability set. A standalone VM, or one in a "
        "different set from its peers, gets a different InfiniBand partition key: its ports may "
        "be ACTIVE, yet NCCL cannot reach the other nodes (hang, IB completion error 12, or a "
        "fallback to sockets). IMDS does not show availability sets: fine if this VM and all its "
        "peers share one.";
    f.fix = std::string("Create the training nodes as ") + kIbOneGroupSettings +
            ". Check the nodes together with `trainready doctor --root a --root b ...`. "
            "Sources: " +
            kIbPlacementSources + ".";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_vm_not_in_scale_set() { return std::make_unique<VmNotInScaleSet>(); }

}  // namespace trainready
