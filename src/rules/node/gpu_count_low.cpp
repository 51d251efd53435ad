// gpu-count-low: fewer GPUs are usable than the VM size has.
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class GpuCountLow final : public Rule {
 public:
  std::string_view id() const override { return "gpu-count-low"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "Fewer GPUs than the VM size has"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    std::string why;
    const SkuEntry* sku = sku_of(n, ctx, why);
    if (sku == nullptr) return RuleOutcome::skip(why);
    RuleOutcome out;
    if (sku->gpu_count == 0) return out;
    const PciKind want = sku->gpu_vendor == "amd" ? PciKind::kAmdGpu : PciKind::kNvidiaGpu;
    int on_bus = -1;
    if (n.pci.ok() && n.pci->excerpt.empty()) {  // an excerpt does not show every GPU
      on_bus = 0;
      for (const auto& d : n.pci->devices) on_bus += d.kind == want;
    }
    // NVIDIA: what NVML can use is what counts. AMD (no NVML): the PCI bus.
    int usable = -1;
    Evidence ev;
    if (want == PciKind::kNvidiaGpu && n.gpus.ok()) {
      if (!n.gpus->driver_loaded) {
        usable = 0;
        ev = {n.gpus->no_driver_reason, n.gpus.where};
      } else {
        usable = static_cast<int>(n.gpus->gpus.size());
        ev = {
            "NVML reports " + std::to_string(usable) + " GPU(s), driver " + n.gpus->driver_version,
            n.gpus.where};
      }
    } else if (on_bus >= 0) {
      usable = on_bus;
      ev = {std::to_string(on_bus) + " GPU(s) on the PCI bus", n.pci.where};
    } else {
      return RuleOutcome::skip("GPUs " + n.gpus.describe() + "; PCI devices " +
                               (n.pci.ok()
                                    ? "shown only in part by the capture (" + n.pci->excerpt + ")"
                                    : n.pci.describe()));
    }
    if (usable >= sku->gpu_count) return out;
    Finding f = finding(std::to_string(usable) + " of " + std::to_string(sku->gpu_count) +
                        " GPUs usable on " + sku->name);
    f.evidence.push_back(ev);
    if (on_bus >= 0)
      f.evidence.push_back({std::to_string(on_bus) + " " +
                                (want == PciKind::kAmdGpu ? "AMD" : "NVIDIA") +
                                " GPU(s) on the PCI bus",
                            n.pci.where});
    f.evidence.push_back(
        {sku->name + " has " + std::to_string(sku->gpu_count) + " x " + sku->gpu_model + "",
         {"catalog", 0}});
    if (usable == 0 && on_bus > 0) {
      f.cause =
          "The GPUs are on the PCI bus but the NVIDIA driver is not loaded or does not match its "
          "user-space "
          "library, so no framework can use them.";
      f.fix =
          "Load the driver (`sudo modprobe nvidia`, check `dmesg | grep -i nvrm`), or reinstall "
          "the driver for the "
          "running kernel; the Azure HPC images ship a matching driver.";
    } else if (on_bus >= 0 && on_bus < sku->gpu_count) {
      f.cause =
          "The host attached fewer GPUs than the size has (a GPU fell off the bus or was not "
          "assigned).";
      f.fix =
          "Deallocate and start the VM; if GPUs are still missing, report the node and take it out "
          "of the job.";
    } else {
      f.cause =
          "Some GPUs are on the bus but the driver could not initialise them (Xid errors, a "
          "fallen-off GPU, "
          "or a pending reset).";
      f.fix =
          "Check `dmesg | grep -i xid` and `nvidia-smi -q`; reset or deallocate/start the VM; "
          "report the node if it persists.";
    }
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_gpu_count_low() { return std::make_unique<GpuCountLow>(); }

}  // namespace trainready
