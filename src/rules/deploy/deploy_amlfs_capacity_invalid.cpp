// deploy-amlfs-capacity-invalid: an Azure Managed Lustre file system whose storage capacity is
// not one its SKU provides (below the minimum, not the minimum plus whole increments, or above
// the maximum), or whose SKU is not one the catalog knows. The service refuses such a file
// system at deployment time, after the VMs around it may already be running.
#include <cmath>

#include "core/text.h"
#include "core/units.h"
#include "queries/deployment_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class DeployAmlfsCapacityInvalid final : public Rule {
 public:
  std::string_view id() const override { return "deploy-amlfs-capacity-invalid"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Azure Managed Lustre capacity its SKU does not provide";
  }
  RuleScope scope() const override { return RuleScope::kDeployment; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    const auto& tiers = ctx.catalog->storage().amlfs_tiers;
    for (const auto& r : ctx.deployment->resources) {
      if (r.kind != ResourceKind::kManagedLustre) continue;
      if (!r.lustre->lustre_sku.is_known() || !r.lustre->lustre_capacity_tib.is_known()) {
        const auto& unresolved = r.lustre->lustre_sku.is_known() ? r.lustre->lustre_capacity_tib.raw
                                                                 : r.lustre->lustre_sku.raw;
        if (r.lustre->lustre_sku.is_unknown() || r.lustre->lustre_capacity_tib.is_unknown())
          out.notes.push_back(label(r) + ": SKU or capacity " + unresolved +
                              " not resolved (or not a whole number of TiB)");
        continue;
      }
      const AmlfsTier* tier = nullptr;
      for (const AmlfsTier& t : tiers) {
        if (iequals(t.name, r.lustre->lustre_sku.value)) tier = &t;
      }
      if (tier == nullptr) {
        out.notes.push_back(label(r) + ": SKU " + r.lustre->lustre_sku.value +
                            " is not in the catalog's amlfs_tiers; capacity not judged");
        continue;
      }
      const double tib = static_cast<double>(r.lustre->lustre_capacity_tib.value);
      const std::string wrong = tier->capacity_problem(tib);
      if (wrong.empty()) continue;
      Finding f = finding(label(r) + ": " + std::to_string(r.lustre->lustre_capacity_tib.value) +
                          " TiB of " + tier->name + " is " + wrong);
      f.evidence.push_back(setting_evidence("storageCapacityTiB", r.lustre->lustre_capacity_tib));
      f.evidence.push_back(setting_evidence("sku", r.lustre->lustre_sku));
      if (tier->above_listed_max(tib)) {
        // "If you are interested in storage values larger than the listed maximum, please open
        // a support ticket" (create-file-system-resource-manager): possible, not impossible.
        f.severity = Severity::kWarning;
        f.cause = tier->name + " lists " + format_tib(tier->min_tib) + " to " +
                  format_tib(tier->max_tib) + " TiB in steps of " +
                  format_tib(tier->increment_tib) +
                  " TiB; larger file systems are created only for subscriptions whose support "
                  "request was approved, and the deployment fails elsewhere.";
        f.fix =
            "If this subscription has an approved support request for this size, suppress this "
            "finding with that justification; otherwise open one before deploying, or use the "
            "listed maximum.";
      } else {
        f.cause = tier->name + " provides " + format_tib(tier->min_tib) + " to " +
                  format_tib(tier->max_tib) + " TiB in steps of " +
                  format_tib(tier->increment_tib) +
                  " TiB; the service refuses any other capacity when the deployment runs, and "
                  "the capacity cannot change after creation.";
        f.fix =
            "Round the capacity up to the next size the SKU provides (`trainready plan "
            "--emit` does), or pick the tier whose range holds it.";
      }
      out.findings.push_back(
          deployment_finding(std::move(f), r, r.lustre->lustre_capacity_tib.where));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_deploy_amlfs_capacity_invalid() {
  return std::make_unique<DeployAmlfsCapacityInvalid>();
}

}  // namespace trainready
