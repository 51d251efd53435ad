// ib-driver-not-loaded: InfiniBand HCAs are on the PCI bus but the RDMA stack does not expose them
// (no /sys/class/infiniband device with an InfiniBand port, or no ib_uverbs for user space).
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class IbDriverNotLoaded final : public Rule {
 public:
  std::string_view id() const override { return "ib-driver-not-loaded"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "InfiniBand HCAs present but the RDMA driver stack is not loaded";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.pci.ok()) return RuleOutcome::skip("PCI devices " + n.pci.describe());
    if (!n.ib.ok()) return RuleOutcome::skip("InfiniBand devices " + n.ib.describe());
    RuleOutcome out;
    // HCAs of an lspci capture with ports an ibstat excerpt does not show: not a missing driver.
    if (!n.ib->excerpt.empty())
      return RuleOutcome::skip("the capture shows only part of the RDMA devices (" + n.ib->excerpt +
                               ")");
    std::vector<const PciDevice*> hcas;
    for (const auto& d : n.pci->devices) {
      if (d.kind == PciKind::kMellanox && (d.class_code >> 8) == 0x0207) hcas.push_back(&d);
    }
    if (hcas.empty()) return out;
    const auto ports = infiniband_ports(*n.ib);
    const bool uverbs = n.modules.ok() && n.modules->loaded("ib_uverbs");
    if (!ports.empty() && uverbs) return out;
    if (!ports.empty() && !n.modules.ok()) {
      // Registered ports mean the kernel driver is there; whether user space can open them
      // (ib_uverbs) was not checked.
      out.notes.push_back("ib_uverbs not checked: kernel modules " + n.modules.describe());
      return out;
    }
    std::string first = hcas.front()->address + " " +
                        (hcas.front()->model.empty() ? "Mellanox" : hcas.front()->model);
    Finding f = ports.empty()
                    ? finding(std::to_string(hcas.size()) +
                              " InfiniBand HCAs on the PCI bus, none registered as an RDMA device")
                    : finding(
                          "InfiniBand devices exist but ib_uverbs is not loaded: user space (NCCL) "
                          "cannot open them");
    f.evidence.push_back({std::to_string(hcas.size()) + " InfiniBand controllers, e.g. " + first,
                          hcas.front()->where});
    f.evidence.push_back(
        {std::to_string(ports.size()) + " InfiniBand ports under /sys/class/infiniband",
         n.ib.where});
    if (n.modules.ok()) {
      std::string mods;
      for (const char* m : {"mlx5_core", "mlx5_ib", "ib_uverbs"}) {
        mods += std::string(mods.empty() ? "" : ", ") + m +
                (n.modules->loaded(m) ? " loaded" : " NOT loaded");
      }
      f.evidence.push_back({mods, n.modules.where});
    }
    f.cause =
        "The mlx5 InfiniBand driver stack (mlx5_core, mlx5_ib, ib_uverbs from the kernel or from "
        "MLNX_OFED/DOCA-OFED) is not loaded, or the OFED install does not match the running "
        "kernel. NCCL then "
        "finds no IB device (\"NET/IB : No device found\") and falls back to TCP sockets.";
    f.fix =
        "sudo modprobe -a mlx5_core mlx5_ib ib_uverbs (and check `dmesg | grep mlx5`). If the "
        "modules do not exist "
        "for this kernel, reinstall DOCA-OFED/MLNX_OFED for it or use an HPC image (microsoft-dsvm "
        "ubuntu-hpc / "
        "almalinux-hpc) that ships a matching stack.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_ib_driver_not_loaded() { return std::make_unique<IbDriverNotLoaded>(); }

}  // namespace trainready
