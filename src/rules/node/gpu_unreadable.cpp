// gpu-unreadable: nvidia-smi names a GPU it cannot open ("Unable to determine the device handle
// ... Unknown Error" / "GPU is lost") or prints ERR! in a GPU's fields.
#include "rules/rule_factories.h"

namespace trainready {
namespace {

constexpr const char* kCause =
    "The driver lost contact with the GPU: it fell off the bus (Xid 79), its GSP firmware "
    "stopped answering (Xid 119/120, \"Timeout waiting for RPC from GSP\"), or it is in an "
    "unrecoverable error state. Every job that lands on it fails or hangs.";
constexpr const char* kFix =
    "Read the kernel log around the failure (`dmesg -T | grep -i -e xid -e NVRM`, or pass it to "
    "`trainready doctor --capture dmesg=FILE`); reset the GPU (`nvidia-smi -r -i N` with no "
    "process on it) or reboot. On Azure deallocate/start the VM and report the node if it "
    "comes back; on bare metal reseat or replace the GPU. Sources: NVIDIA Xid catalog "
    "(docs.nvidia.com/deploy/xid-errors); NVIDIA/open-gpu-kernel-modules#387, #446.";

class GpuUnreadable final : public Rule {
 public:
  std::string_view id() const override { return "gpu-unreadable"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "nvidia-smi cannot read a GPU (ERR!, lost)"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.gpus.ok()) return RuleOutcome::skip("GPUs " + n.gpus.describe());
    RuleOutcome out;
    for (const LostGpu& l : n.gpus->lost) {
      Finding f = finding("GPU " + l.pci + " cannot be opened by the driver");
      f.node = n.label;
      f.evidence.push_back({l.message, l.where});
      f.cause = kCause;
      f.fix = kFix;
      out.findings.push_back(std::move(f));
    }
    for (const Gpu& g : n.gpus->gpus) {
      if (g.unreadable_fields.empty()) continue;
      Finding f = finding("GPU " + std::to_string(g.index) +
                          (g.pci_bus_id.empty() ? "" : " (" + g.pci_bus_id + ")") +
                          ": nvidia-smi cannot read " + std::to_string(g.unreadable_fields.size()) +
                          " of its fields");
      f.node = n.label;
      for (std::size_t i = 0; i < g.unreadable_fields.size() && i < 4; ++i)
        f.evidence.push_back({g.unreadable_fields[i], g.where});
      f.cause = kCause;
      f.fix = kFix;
      out.findings.push_back(std::move(f));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_gpu_unreadable() { return std::make_unique<GpuUnreadable>(); }

}  // namespace trainready
