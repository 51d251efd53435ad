// deploy-ib-spg-off: an InfiniBand scale set that is not one placement group
// (singlePlacementGroup false, unset where the platform default is false, or Flexible with
// platformFaultDomainCount 1), or an AKS node pool of an InfiniBand size: its VMs land in
// several InfiniBand fabrics. The settings that give one group come from catalog/ib_placement.h.
#include "catalog/ib_placement.h"
#include "core/text.h"
#include "queries/deployment_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class DeployIbSpgOff final : public Rule {
 public:
  std::string_view id() const override { return "deploy-ib-spg-off"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "InfiniBand scale set not in a single placement group";
  }
  RuleScope scope() const override { return RuleScope::kDeployment; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    for (const auto& r : ctx.deployment->resources) {
      if (r.kind != ResourceKind::kScaleSet && r.kind != ResourceKind::kAksNodePool) continue;
      if (!has_infiniband(r, *ctx.catalog)) continue;
      if (r.kind == ResourceKind::kAksNodePool) {
        Finding f = finding(label(r) +
                            ": AKS creates its scale set with singlePlacementGroup "
                            "false, so a pool of " +
                            r.vm_size.value + " splits into several InfiniBand groups");
        f.severity = Severity::kInfo;
        f.evidence.push_back(setting_evidence("VM size", r.vm_size));
        f.cause =
            "AKS-created scale sets have singlePlacementGroup false and users cannot change "
            "it (Azure/AKS#2725): nodes in different placement groups cannot reach each "
            "other over InfiniBand; NCCL hangs or falls back to sockets beyond a few nodes.";
        f.fix =
            "Keep multi-node InfiniBand jobs inside one placement group (check the nodes' "
            "placementGroupId with `trainready lint` on their IMDS documents), or run them on "
            "a VM scale set with singlePlacementGroup true outside AKS.";
        out.findings.push_back(deployment_finding(std::move(f), r, r.vm_size.where));
        continue;
      }
      const auto& spg = r.placement->single_placement_group;
      if (spg.is_unknown()) {
        out.notes.push_back(label(r) + ": singlePlacementGroup " + spg.raw + " not resolved (" +
                            spg.where.str() + ")");
        continue;
      }
      const std::string mode =
          r.placement->orchestration_mode.is_known() ? r.placement->orchestration_mode.value : "";
      const auto& fd = r.placement->platform_fault_domain_count;
      if (iequals(mode, "Flexible") && fd.is_unknown()) {
        out.notes.push_back(label(r) + ": platformFaultDomainCount " + fd.raw + " not resolved (" +
                            fd.where.str() + ")");
        continue;
      }
      std::optional<bool> spg_value;
      if (spg.is_known())
        spg_value = spg.value;
      else if (!r.placement->spg_default_false_because.empty())
        spg_value = false;  // the platform or provider default when unset
      const IbGroupJudgement j = judge_scale_set_ib_group(
          mode, spg_value, fd.is_known() ? std::optional<long long>(fd.value) : std::nullopt);
      if (j.group != IbGroup::kSeveral) continue;
      Finding f =
          finding(label(r) + ": " + r.vm_size.value + " scale set is not a single placement group");
      f.evidence.push_back(setting_evidence("singlePlacementGroup", spg));
      if (spg.is_unset() && !r.placement->spg_default_false_because.empty())
        f.evidence.push_back({r.placement->spg_default_false_because, r.where});
      if (iequals(mode, "Flexible")) {
        f.evidence.push_back(
            setting_evidence("orchestrationMode", r.placement->orchestration_mode));
        f.evidence.push_back(setting_evidence("platformFaultDomainCount", fd));
      }
      f.evidence.push_back(setting_evidence("VM size", r.vm_size));
      f.cause = "InfiniBand connects only the VMs of one placement group, and " + j.why +
                ": the scale set spreads over several placement groups, and VMs in different "
                "ones cannot reach each other over InfiniBand; NCCL hangs at init or falls back "
                "to NET/Socket.";
      f.fix = std::string("Deploy ") + kIbOneGroupSettings +
              ". Terraform: single_placement_group = true on azurerm_linux_virtual_machine_"
              "scale_set. Sources: " +
              kIbPlacementSources + ".";
      const Provenance at = spg.is_known() ? spg.where : (fd.is_known() ? fd.where : r.where);
      out.findings.push_back(deployment_finding(std::move(f), r, at));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_deploy_ib_spg_off() { return std::make_unique<DeployIbSpgOff>(); }

}  // namespace trainready
