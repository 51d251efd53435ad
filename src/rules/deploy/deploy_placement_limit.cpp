// deploy-placement-limit: a single-placement-group scale set above 100 VMs (the default cap; a
// support request raises it to 300) or above 300, or an availability set above 200 VMs.
#include <map>

#include "core/text.h"
#include "queries/deployment_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

constexpr long long kSpgDefaultCap = 100;
constexpr long long kSpgRaisedCap = 300;
constexpr long long kAvailabilitySetCap = 200;

class DeployPlacementLimit final : public Rule {
 public:
  std::string_view id() const override { return "deploy-placement-limit"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "Placement group or availability set larger than Azure allows";
  }
  RuleScope scope() const override { return RuleScope::kDeployment; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    const auto& rs = ctx.deployment->resources;
    // VMs per availability set key (the lower-case name or address VMs refer to).
    std::map<std::string, long long> members;
    for (const auto& r : rs) {
      if (r.kind == ResourceKind::kVirtualMachine && r.availability_set.is_known())
        members[r.availability_set.value] += vm_count(r).value_or(1);
    }
    for (const auto& r : rs) {
      if (r.kind == ResourceKind::kScaleSet) scale_set(r, &out);
      if (r.kind == ResourceKind::kAvailabilitySet) availability_set(r, members, &out);
    }
    return out;
  }

 private:
  void scale_set(const DeploymentResource& r, RuleOutcome* out) const {
    bool uniform = !r.placement->orchestration_mode.is_known() ||
                   iequals(r.placement->orchestration_mode.value, "Uniform");
    bool spg = r.placement->single_placement_group.is_known()
                   ? r.placement->single_placement_group.value
                   : (r.placement->single_placement_group.is_unset() && uniform &&
                      r.placement->spg_default_false_because.empty());
    if (!spg || !r.count.is_known() || r.count.value <= kSpgDefaultCap) return;
    Finding f =
        finding(label(r) + ": " + std::to_string(r.count.value) + " VMs in one placement group");
    f.evidence.push_back(setting_evidence("capacity", r.count));
    f.evidence.push_back(
        setting_evidence("singlePlacementGroup", r.placement->single_placement_group));
    if (r.count.value <= kSpgRaisedCap) {
      f.severity = Severity::kWarning;
      f.cause =
          "A scale set with singlePlacementGroup true holds at most 100 VMs unless a "
          "support request raises the cap to 300: the deployment or a scale-out past 100 "
          "fails.";
      f.fix =
          "Open a support request to raise the single-placement-group limit to 300 before "
          "deploying, or size the scale set to 100 VMs.";
    } else {
      f.cause =
          "A single placement group holds at most 300 VMs even after a support request; "
          "the job cannot grow past it on one InfiniBand fabric.";
      f.fix =
          "Split the job into InfiniBand domains of at most 300 VMs (one scale set each) and "
          "keep each data-parallel group inside one; traffic between domains goes over "
          "Ethernet.";
    }
    out->findings.push_back(deployment_finding(std::move(f), r, r.count.where));
  }

  void availability_set(const DeploymentResource& set,
                        const std::map<std::string, long long>& by_set, RuleOutcome* out) const {
    long long members = 0;
    if (auto it = by_set.find(to_lower(set.name)); it != by_set.end()) members = it->second;
    if (to_lower(set.address) != to_lower(set.name)) {
      if (auto it = by_set.find(to_lower(set.address)); it != by_set.end()) members += it->second;
    }
    if (members <= kAvailabilitySetCap) return;
    Finding f = finding(label(set) + ": " + std::to_string(members) +
                        " VMs in one availability set (the limit is 200)");
    f.evidence.push_back(
        {std::to_string(members) + " VMs reference this availability set", set.where});
    f.cause = "An availability set holds at most 200 VMs; the deployment fails past it.";
    f.fix =
        "Use a scale set with singlePlacementGroup true (100, or 300 after a support "
        "request) or split the cluster into InfiniBand domains of at most 200 VMs.";
    out->findings.push_back(deployment_finding(std::move(f), set, set.where));
  }
};

}  // namespace

std::unique_ptr<Rule> make_deploy_placement_limit() {
  return std::make_unique<DeployPlacementLimit>();
}

}  // namespace trainready
