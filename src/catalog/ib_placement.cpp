#include "catalog/ib_placement.h"

#include "core/text.h"

namespace trainready {

IbGroupJudgement judge_scale_set_ib_group(const std::string& orchestration, std::optional<bool> spg,
                                          std::optional<long long> fault_domain_count) {
  IbGroupJudgement j;
  const bool flexible = iequals(orchestration, "Flexible");
  // Unset = 1: max spreading is the Flexible default (manage-fault-domains page).
  const long long fd = fault_domain_count.value_or(1);
  if (flexible && fd <= 1) {
    j.group = IbGroup::kSeveral;
    j.why = "a Flexible scale set with platformFaultDomainCount 1 (max spreading" +
            std::string(fault_domain_count ? "" : ", the default when unset") +
            ") has singlePlacementGroup false from the first VM, whatever the template asks";
    return j;
  }
  if (spg && !*spg) {
    j.group = IbGroup::kSeveral;
    j.why = "singlePlacementGroup false";
    return j;
  }
  if (flexible) {
    j.group = IbGroup::kOne;
    j.why = "Flexible with platformFaultDomainCount " + std::to_string(fd) +
            " (fixed spreading): one placement group of up to 200 VMs; InfiniBand on Flexible "
            "is listed as not supported by one version of the orchestration-modes page";
    return j;
  }
  j.group = IbGroup::kOne;
  j.why = spg ? "singlePlacementGroup true" : "Uniform scale sets default to one placement group";
  return j;
}

}  // namespace trainready
