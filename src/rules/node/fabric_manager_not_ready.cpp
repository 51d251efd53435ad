// fabric-manager-not-ready: an NVSwitch size (ND A100 v4, ND H100/H200 v5) whose GPUs are not
// registered with the NVLink fabric: NVIDIA Fabric Manager is not running, or failed. Read from
// NVML's GPU fabric state (Hopper and later); A100 does not report it, so the rule says so.
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class FabricManagerNotReady final : public Rule {
 public:
  std::string_view id() const override { return "fabric-manager-not-ready"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "NVSwitch GPUs not registered with the fabric (Fabric Manager)";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    std::string why;
    const SkuEntry* sku = sku_of(n, ctx, why);
    if (sku == nullptr) return RuleOutcome::skip(why);
    RuleOutcome out;
    if (!sku->fabric_manager) return out;
    if (!n.gpus.ok()) return RuleOutcome::skip("GPUs " + n.gpus.describe());
    if (!n.gpus->driver_loaded)
      return RuleOutcome::skip("no NVIDIA driver: " + n.gpus->no_driver_reason);
    std::vector<const Gpu*> bad;
    int reported = 0;
    for (const Gpu& g : n.gpus->gpus) {
      if (!g.fabric_state || *g.fabric_state == "not-supported") continue;
      ++reported;
    }
    for (const Gpu& g : n.gpus->gpus) {
      if (!g.fabric_state || *g.fabric_state == "not-supported") {
        // Some GPUs report a state and this one does not: it was not checked.
        if (reported > 0)
          out.notes.push_back("GPU " + std::to_string(g.index) + " (" + g.pci_bus_id +
                              "): NVML reports no fabric state");
        continue;
      }
      if (*g.fabric_state != "completed" || g.fabric_status.value_or(0) != 0) bad.push_back(&g);
    }
    if (reported == 0)
      return RuleOutcome::skip(
          "NVML reports no GPU fabric state on these GPUs (A100 and drivers before R530 do "
          "not); check `systemctl is-active nvidia-fabricmanager` on the node");
    if (bad.empty()) return out;
    const Gpu& first = *bad.front();
    Finding f = finding(std::to_string(bad.size()) + " of " + std::to_string(n.gpus->gpus.size()) +
                        " GPUs are not registered with the " + "NVLink fabric (GPU " +
                        std::to_string(first.index) + ": fabric state " + *first.fabric_state +
                        ", status " + std::to_string(first.fabric_status.value_or(0)) + ")");
    for (const Gpu* g : bad) {
      f.evidence.push_back({"GPU " + std::to_string(g->index) + " (" + g->pci_bus_id +
                                "): fabric state " + *g->fabric_state + ", status " +
                                std::to_string(g->fabric_status.value_or(0)),
                            n.gpus.where});
    }
    f.evidence.push_back({sku->name + ": NVSwitch; Azure's image requires nvidia-fabricmanager " +
                              "active (" + ctx.catalog->source_text(sku->image_source) + ")",
                          {"catalog", 0}});
    f.cause =
        "On NVSwitch systems NVIDIA Fabric Manager configures the switches and registers every "
        "GPU with the NVLink fabric. Until it has (state completed, status success), CUDA "
        "peer-to-peer over NVLink, NVLS (NVLink SHARP) and multi-GPU collectives fail or fall "
        "back: NCCL errors at init, or a single-node all-reduce far below the health-check "
        "floor. Usual causes: the nvidia-fabricmanager service is stopped or failed, or its "
        "version differs from the driver's.";
    f.fix =
        "sudo systemctl status nvidia-fabricmanager; sudo journalctl -u nvidia-fabricmanager. "
        "Start and enable it (sudo systemctl enable --now nvidia-fabricmanager); its package "
        "version must match the driver (" +
        (n.gpus->driver_version.empty() ? std::string("nvidia-smi") : n.gpus->driver_version) +
        "). If it will not start, deallocate/start the VM and report the node.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_fabric_manager_not_ready() {
  return std::make_unique<FabricManagerNotReady>();
}

}  // namespace trainready
