// framework-pcie-collective-hang: the log says, in a person's words, that a collective hangs
// between GPUs connected by PCIe only (no NVLink): NCCL's troubleshooting guide's ACS / IOMMU case.
#include "rules/rule_factories.h"
#include "rules/run/framework_evidence.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class FrameworkPcieHang : public Rule {
 public:
  std::string_view id() const override { return "framework-pcie-collective-hang"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "A collective hangs between PCIe-only GPUs: PCI ACS or the IOMMU";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const auto events = framework_events(f.framework, {FrameworkEventKind::kPcieHang});
    if (events.empty()) return {};
    Finding x = finding("A collective hangs between GPUs on PCIe without NVLink (the log says \"" +
                        events.front()->detail + "\")");
    for (std::size_t i = 0; i < events.size() && i < 2; ++i)
      x.evidence.push_back(framework_evidence(*events[i]));
    // NCCL user guide, Troubleshooting > GPU Direct > PCI Access Control Services (ACS): IO
    // virtualization (VT-d / IOMMU) "can interfere with GPU Direct by redirecting all PCI
    // point-to-point traffic to the CPU root complex, causing a significant performance
    // reduction or even a hang"; "sudo lspci -vvv | grep ACSCtl": "SrcValid+" means ACS is on.
    x.cause =
        "Without NVLink, NCCL's peer-to-peer transport writes straight from one GPU to the "
        "other across PCIe. With PCI Access Control Services (ACS) enabled on the PCIe bridges "
        "or root ports, or an IOMMU (Intel VT-d, AMD-Vi) translating the GPUs' addresses, those "
        "peer writes are redirected to the CPU root complex, where they are slow or lost: the "
        "collective never completes. Confirm: rerun with NCCL_P2P_DISABLE=1 (if the hang goes "
        "away, peer-to-peer is at fault) and run sudo lspci -vvv | grep ACSCtl (SrcValid+ on a "
        "bridge means ACS is on); cat /proc/cmdline shows whether the IOMMU is on.";
    x.fix =
        "Disable ACS on the PCIe bridges and root ports (a BIOS setting, or setpci on each "
        "bridge at boot) and, on bare metal, the IOMMU or its translation (intel_iommu=off / "
        "amd_iommu=off, or iommu=pt); until then NCCL_P2P_DISABLE=1 keeps the job running "
        "through host memory, more slowly. Check the pair with the CUDA sample "
        "p2pBandwidthLatencyTest or nvidia-smi topo -p2p p.";
    x.rank = 50;
    RuleOutcome o;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_framework_pcie_collective_hang() {
  return std::make_unique<FrameworkPcieHang>();
}

}  // namespace trainready
