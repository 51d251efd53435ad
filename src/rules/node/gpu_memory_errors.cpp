// gpu-memory-errors: a GPU reports a failed row remap, a remap waiting for reset, or uncorrected
// ECC errors since the driver loaded.
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class GpuMemoryErrors final : public Rule {
 public:
  std::string_view id() const override { return "gpu-memory-errors"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "GPU memory errors (row remapping, uncorrected ECC)";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.gpus.ok()) return RuleOutcome::skip("GPUs " + n.gpus.describe());
    RuleOutcome out;
    if (!n.gpus->driver_loaded) return out;
    for (const Gpu& g : n.gpus->gpus) {
      const std::string who = "GPU " + std::to_string(g.index) + " (" + g.pci_bus_id + ")";
      if (g.remap_failure.value_or(false)) {
        Finding f = finding(who + ": row remapping failed");
        f.severity = Severity::kError;
        f.evidence.push_back({"nvmlDeviceGetRemappedRows: failureOccurred = 1", n.gpus.where});
        f.cause =
            "The GPU ran out of spare rows to remap failing HBM; further memory errors will crash "
            "jobs.";
        f.fix =
            "Take the node out of service and report it (Azure: Guest Health Reporting, fault GPU "
            "memory).";
        out.findings.push_back(std::move(f));
      } else if (g.remap_pending.value_or(false)) {
        Finding f = finding(who + ": a row remap is pending a GPU reset");
        f.evidence.push_back({"nvmlDeviceGetRemappedRows: isPending = 1", n.gpus.where});
        f.cause =
            "A failing memory row was marked for remapping, which takes effect only after a GPU "
            "reset.";
        f.fix = "Reset the GPU (`nvidia-smi -r -i " + std::to_string(g.index) +
                "` with no processes on it) or reboot before the next job.";
        out.findings.push_back(std::move(f));
      }
      if (g.ecc_uncorrected_volatile.value_or(0) > 0) {
        Finding f = finding(who + ": " + std::to_string(*g.ecc_uncorrected_volatile) +
                            " uncorrected ECC error(s) since the driver loaded");
        f.evidence.push_back({"nvmlDeviceGetTotalEccErrors(uncorrected, volatile) = " +
                                  std::to_string(*g.ecc_uncorrected_volatile),
                              n.gpus.where});
        f.cause =
            "Uncorrected ECC errors corrupt data or kill the process that hit them (Xid 48/63/64).";
        f.fix = "Drain the node, reset the GPU, and report the node if errors return.";
        out.findings.push_back(std::move(f));
      }
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_gpu_memory_errors() { return std::make_unique<GpuMemoryErrors>(); }

}  // namespace trainready
