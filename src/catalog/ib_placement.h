#pragma once
// One source of truth for "which Azure deployment settings put VMs in one InfiniBand placement
// group": every rule and planner line that gives this advice reads it from here, so the doctor
// can never recommend a configuration the lint rejects.
//
// Sources (read 2026-12-01):
//  - learn.microsoft.com/azure/virtual-machines/setup-infiniband (cluster configuration
//    options): RDMA only among VMs of one scale set (a single placement group) or one
//    availability set; a placement group holds 100 VMs by default, 300 after a support request;
//    an availability set at most 200.
//  -
//  learn.microsoft.com/azure/virtual-machine-scale-sets/virtual-machine-scale-sets-orchestration-modes:
//    Flexible orchestration, sizes without memory-preserving updates (the N-series): with
//    platformFaultDomainCount 1 (max spreading) single placement group is false; with fixed
//    spreading (> 1) it is true, up to 200 VMs. One version of the page lists InfiniBand as not
//    supported on Flexible.
//  -
//  learn.microsoft.com/azure/virtual-machine-scale-sets/virtual-machine-scale-sets-manage-fault-domains:
//    platformFaultDomainCount 1 = max spreading, the Flexible default.
#include <optional>
#include <string>

namespace trainready {

// The configurations that give one InfiniBand placement group, in the order to prefer them.
inline constexpr const char* kIbOneGroupSettings =
    "one VM scale set in Uniform orchestration with singlePlacementGroup=true (at most 100 VMs by "
    "default, 300 after a support request), or one availability set (at most 200 VMs); Flexible "
    "orchestration gives one placement group only with platformFaultDomainCount > 1 (fixed "
    "spreading, up to 200 VMs), never with platformFaultDomainCount=1 (max spreading sets "
    "singlePlacementGroup false), and one version of Azure's orchestration-modes page lists "
    "InfiniBand as not supported on Flexible, so prefer Uniform";

// The same, short, for the planner's one-line reasons.
inline constexpr const char* kIbOneGroupShort =
    "one Uniform VM scale set with singlePlacementGroup=true (at most 100 VMs, 300 after a "
    "support request) or one availability set (at most 200 VMs); Flexible only with "
    "platformFaultDomainCount > 1";

inline constexpr const char* kIbPlacementSources =
    "learn.microsoft.com/azure/virtual-machines/setup-infiniband; "
    "learn.microsoft.com/azure/virtual-machine-scale-sets/"
    "virtual-machine-scale-sets-orchestration-modes (read 2026-12-01)";

enum class IbGroup { kOne, kSeveral, kUnknown };

struct IbGroupJudgement {
  IbGroup group = IbGroup::kUnknown;
  std::string why;  // the platform behaviour that decides it, for evidence
};

// A scale set's settings as written: orchestration "Uniform", "Flexible" or "" (unset: ARM's
// default is Uniform); single placement group and fault-domain count nullopt when unset.
IbGroupJudgement judge_scale_set_ib_group(const std::string& orchestration,
                                          std::optional<bool> single_placement_group,
                                          std::optional<long long> fault_domain_count);

}  // namespace trainready
