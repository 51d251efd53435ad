// deploy-ib-vms-ungrouped: InfiniBand VMs that are not all in one scale set or one availability
// set (standalone VMs, or VMs spread over several sets / scale sets) get different partition
// keys and cannot reach each other over InfiniBand.
#include <map>

#include "catalog/ib_placement.h"
#include "queries/deployment_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class DeployIbVmsUngrouped final : public Rule {
 public:
  std::string_view id() const override { return "deploy-ib-vms-ungrouped"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "InfiniBand VMs not in one scale set or availability set";
  }
  RuleScope scope() const override { return RuleScope::kDeployment; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    RuleOutcome out;
    // group → (VMs, first resource). A standalone VM is a group of its own.
    struct Group {
      long long vms = 0;
      const DeploymentResource* first = nullptr;
    };
    std::map<std::string, Group> groups;
    long long standalone = 0;
    const DeploymentResource* first_standalone = nullptr;
    long long ib_vms = 0;
    bool counts_known = true;
    for (const auto& r : ctx.deployment->resources) {
      if (r.deployed || !has_infiniband(r, *ctx.catalog)) continue;
      if (r.kind == ResourceKind::kScaleSet) {
        // An unresolved capacity is at least one VM, and said so: never "1 VM".
        if (!vm_count(r)) {
          counts_known = false;
          out.notes.push_back(label(r) + ": capacity " + r.count.raw + " not resolved (" +
                              r.count.where.str() + "); counted as at least one VM");
        }
        auto n = vm_count(r).value_or(1);
        auto& g = groups["scale set " + r.name];
        g.vms += n;
        if (g.first == nullptr) g.first = &r;
        ib_vms += n;
        continue;
      }
      if (r.kind != ResourceKind::kVirtualMachine) continue;
      auto n = vm_count(r);
      if (!n) {
        counts_known = false;
        out.notes.push_back(label(r) + ": copy count not resolved; counted as at least one VM");
      }
      long long k = n.value_or(1);
      ib_vms += k;
      if (r.availability_set.is_unknown() || r.scale_set.is_unknown()) {
        out.notes.push_back(label(r) + ": availability set / scale set reference not resolved (" +
                            r.where.str() + ")");
        continue;
      }
      std::string key;
      if (r.scale_set.is_known() && !r.scale_set.value.empty()) {
        key = "scale set " + r.scale_set.value;
      } else if (r.availability_set.is_known() && !r.availability_set.value.empty()) {
        key = "availability set " + r.availability_set.value;
      }
      if (key.empty()) {
        standalone += k;
        if (first_standalone == nullptr) first_standalone = &r;
        continue;
      }
      auto& g = groups[key];
      g.vms += k;
      if (g.first == nullptr) g.first = &r;
    }
    long long group_count = static_cast<long long>(groups.size()) + standalone;
    if (ib_vms < 2 || group_count < 2) return out;

    // One InfiniBand VM beside one compute group is a head or controller node far more often
    // than a compute node left out (HPC Pack, Slurm and CycleCloud templates all do this).
    if (standalone == 1 && groups.size() == 1) {
      const auto& [gname, g] = *groups.begin();
      Finding f = finding(label(*first_standalone) + " (" + first_standalone->vm_size.value +
                          ") is outside " + gname +
                          "; if it is a head or controller node that "
                          "runs no MPI / NCCL ranks, this is fine");
      f.severity = Severity::kInfo;
      f.evidence.push_back(
          {gname + ": " + std::to_string(g.vms) + " VM(s), " + label(*g.first), g.first->where});
      f.evidence.push_back({"standalone: " + label(*first_standalone), first_standalone->where});
      f.cause =
          "Azure gives each scale set, availability set and standalone VM its own InfiniBand "
          "partition key: this VM cannot reach the compute nodes over InfiniBand.";
      f.fix =
          std::string("Nothing to do for a head node. If it runs ranks of the job, put it in ") +
          kIbOneGroupSettings + "; if it never uses InfiniBand, a size without it costs less.";
      out.findings.push_back(
          deployment_finding(std::move(f), *first_standalone, first_standalone->where));
      return out;
    }

    const DeploymentResource* at = first_standalone;
    if (at == nullptr) at = groups.begin()->second.first;
    std::string what;
    const std::string at_least = counts_known ? "" : "at least ";
    if (standalone > 0 && groups.empty()) {
      what = at_least + std::to_string(standalone) +
             " InfiniBand VMs are standalone (no scale set, no "
             "availability set)";
    } else {
      what = at_least + std::to_string(ib_vms) + " InfiniBand VMs are spread over " +
             std::to_string(group_count) + " InfiniBand groups";
    }
    Finding f = finding(what);
    for (const auto& [name, g] : groups)
      f.evidence.push_back(
          {name + ": " + std::to_string(g.vms) + " VM(s), " + label(*g.first), g.first->where});
    if (first_standalone != nullptr)
      f.evidence.push_back({std::to_string(standalone) + " standalone VM(s), first " +
                                label(*first_standalone) + " (" + first_standalone->vm_size.value +
                                ")",
                            first_standalone->where});
    f.cause =
        "Azure gives each scale set, each availability set and each standalone VM its own "
        "InfiniBand partition key; VMs with different keys cannot talk over InfiniBand "
        "(NCCL hangs at init or falls back to NET/Socket), and scale sets are isolated "
        "from each other.";
    f.fix = std::string("Put every VM of the training cluster in ") + kIbOneGroupSettings +
            " (VM: availabilitySet.id; Terraform: availability_set_id). Sources: " +
            kIbPlacementSources + ".";
    out.findings.push_back(deployment_finding(std::move(f), *at, at->where));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_deploy_ib_vms_ungrouped() {
  return std::make_unique<DeployIbVmsUngrouped>();
}

}  // namespace trainready
