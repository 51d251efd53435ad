// pcie-acs-enabled: PCIe Access Control Services turned on along the GPU/NIC paths of a bare
// metal node. ACS redirects peer-to-peer requests up to the root complex, so GPUDirect (GPU to
// GPU over PCIe, GPU to NIC for RDMA) is slowed or hangs; NVIDIA's disable_acs.sh sets every
// ACS control register to 0 (setpci ECAP_ACS+0x6.w=0). In a virtual machine ACS belongs to the
// host and the guest needs it ("Virtual machines require ACS to function", GPUd components/pci,
// which flags ACS on bare metal only and skips unknown virtualisation): so does this rule.
#include <cstdio>

#include "rules/rule_factories.h"

namespace trainready {
namespace {

std::string acs_bits(std::uint16_t v) {
  static const char* const kNames[] = {"SrcValid",    "TransBlk",   "ReqRedir",   "CmpltRedir",
                                       "UpstreamFwd", "EgressCtrl", "DirectTrans"};
  std::string s;
  for (int i = 0; i < 7; ++i)
    if (v & (1u << i)) s += (s.empty() ? "" : " ") + std::string(kNames[i]) + "+";
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%04x", v);
  return std::string("ACSCtl ") + hex + (s.empty() ? "" : " (" + s + ")");
}

class PcieAcsEnabled final : public Rule {
 public:
  std::string_view id() const override { return "pcie-acs-enabled"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "PCIe ACS enabled on the GPU/NIC path of a bare-metal node";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.virtualization.ok())
      return RuleOutcome::skip("whether this is a VM " + n.virtualization.describe());
    const VirtInfo& v = *n.virtualization;
    if (!v.known)
      return RuleOutcome::skip("cannot tell a VM from bare metal (" + v.evidence +
                               "): ACS is judged on bare metal only");
    if (v.virtual_machine)
      return RuleOutcome::does_not_apply("a virtual machine (" +
                                         (v.hypervisor.empty() ? v.evidence : v.hypervisor) +
                                         "): ACS is the host's, and a VM needs it");
    if (!n.pci_isolation.ok())
      return RuleOutcome::skip("PCI configuration " + n.pci_isolation.describe());
    RuleOutcome out;
    Finding f = finding("");
    int on = 0;
    int read = 0;
    for (const PciIsolation& p : n.pci_isolation->functions) {
      if (p.config_short) continue;
      ++read;
      if (!p.acs_control || *p.acs_control == 0) continue;
      ++on;
      f.evidence.push_back({p.role + " " + p.address + ": " + acs_bits(*p.acs_control), p.where});
    }
    if (read == 0)
      return RuleOutcome::skip(
          "no PCI extended configuration space was readable (the kernel shows it to root "
          "only): run the doctor as root, or pass `lspci -vvv` run as root");
    if (on == 0) return out;
    f.message = std::to_string(on) + " PCI function" + (on == 1 ? "" : "s") +
                " on GPU/NIC paths with ACS enabled on bare metal";
    f.cause =
        "With ACS request/completion redirect on, a PCIe switch sends peer-to-peer traffic "
        "(GPU to GPU, GPU to NIC with GPUDirect RDMA) up to the CPU's root complex instead of "
        "across the switch: bandwidth drops sharply or the transfer hangs, and NCCL's P2P and "
        "GPUDirect RDMA paths suffer. Firmware or the kernel enables it for device isolation; "
        "a training node on bare metal does not need that isolation.";
    f.fix =
        "Disable ACS in the BIOS (PCIe ACS / IOMMU isolation settings) or at boot for every "
        "device that has it: `setpci -s <bdf> ECAP_ACS+0x6.w=0000` as root (NVIDIA's "
        "disable_acs.sh does this in a loop; it does not survive a reboot). Check with "
        "`sudo lspci -vvv | grep ACSCtl`: every line should show only '-'.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_pcie_acs_enabled() { return std::make_unique<PcieAcsEnabled>(); }

}  // namespace trainready
