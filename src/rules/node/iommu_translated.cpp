// iommu-translated: a GPU or InfiniBand NIC whose IOMMU group translates DMA (group type "DMA"
// or "DMA-FQ") rather than passing it through ("identity"). NCCL's RAS diagnostics check this
// per GPU/NIC pair (identity = passthrough, DMA/DMA-FQ = remapping) together with ATS on the
// NICs; NCCL's troubleshooting guide: IO virtualisation "can interfere with GPU Direct by
// redirecting all PCI point-to-point traffic to the CPU root complex, causing a significant
// performance reduction or even a hang". ATS (the device caching its translations) softens
// the cost of translation and is shown, not judged.
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class IommuTranslated final : public Rule {
 public:
  std::string_view id() const override { return "iommu-translated"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "IOMMU translates DMA for a GPU or RDMA NIC (not passthrough)";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.pci_isolation.ok())
      return RuleOutcome::skip("IOMMU groups " + n.pci_isolation.describe());
    const PciIsolationFacts& p = *n.pci_isolation;
    RuleOutcome out;
    if (!p.iommu_present) return out;  // no IOMMU: DMA is untranslated
    Finding f = finding("");
    int translated = 0;
    for (const PciIsolation& fn : p.functions) {
      if (fn.role == "bridge" || !fn.iommu_type) continue;
      if (*fn.iommu_type != "DMA" && *fn.iommu_type != "DMA-FQ") continue;
      ++translated;
      std::string text = fn.role + " " + fn.address + ": IOMMU group " +
                         fn.iommu_group.value_or("?") + " type " + *fn.iommu_type;
      if (fn.ats_enabled) text += *fn.ats_enabled ? ", ATS enabled" : ", ATS disabled";
      f.evidence.push_back({text, fn.where});
    }
    if (translated == 0) return out;
    f.message = std::to_string(translated) + " GPU/NIC function" + (translated == 1 ? "" : "s") +
                " behind an IOMMU that translates DMA";
    f.cause =
        "Every DMA of the device goes through IOMMU translation: GPUDirect RDMA and PCIe "
        "peer-to-peer traffic pay a page-table walk per transfer (less where the device caches "
        "translations with ATS), and the kernel's lazy (DMA-FQ) or strict (DMA) invalidation "
        "costs CPU time. On a dedicated training node passthrough (identity) is the usual "
        "setting; NCCL's diagnostics report this mode per GPU/NIC pair.";
    f.fix =
        "Boot with the IOMMU in passthrough: add `iommu=pt` (Intel: `intel_iommu=on iommu=pt`; "
        "AMD: `amd_iommu=on iommu=pt`; Arm SMMU: `iommu.passthrough=1`) to the kernel command "
        "line, or set one group with `echo identity > /sys/kernel/iommu_groups/<n>/type` while "
        "its driver is unbound. Keep translation only where device isolation is required.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_iommu_translated() { return std::make_unique<IommuTranslated>(); }

}  // namespace trainready
