// gpudirect-rdma-disabled: NVIDIA GPUs and InfiniBand, but no peer-memory module, so the HCAs
// cannot read GPU memory directly.
#include "facts/queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

class GpudirectRdmaDisabled final : public Rule {
 public:
  std::string_view id() const override { return "gpudirect-rdma-disabled"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "GPUDirect RDMA unavailable (nvidia_peermem not loaded)";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.modules.ok()) return RuleOutcome::skip("kernel modules " + n.modules.describe());
    RuleOutcome out;
    std::string why;
    const SkuEntry* sku = sku_of(n, *ctx.catalog, why);
    bool applies = false;
    Evidence basis;
    if (sku != nullptr) {
      applies = sku->gpudirect_rdma && sku->gpu_vendor == "nvidia";
      basis = {sku->name + " supports GPUDirect RDMA over " + sku->ib_generation + " InfiniBand",
               {"catalog", 0}};
    } else {
      // Size unknown: judge from the node itself.
      const bool nvidia = n.gpus.ok() && n.gpus->driver_loaded && !n.gpus->gpus.empty();
      const bool ib = n.ib.ok() && !infiniband_ports(*n.ib).empty();
      if (!n.gpus.ok() || !n.ib.ok())
        return RuleOutcome::skip(why + "; and GPUs " + n.gpus.describe());
      applies = nvidia && ib;
      basis = {"NVIDIA GPUs and InfiniBand ports on this node", n.ib.where};
    }
    if (!applies) return out;
    if (n.modules->loaded("nvidia_peermem") || n.modules->loaded("nv_peer_mem")) return out;
    Finding f = finding("nvidia_peermem is not loaded: NCCL cannot use GPUDirect RDMA");
    f.evidence.push_back(
        {"nvidia_peermem and nv_peer_mem absent from /proc/modules", n.modules.where});
    f.evidence.push_back(basis);
    f.cause =
        "Without a peer-memory module the HCAs cannot register GPU memory (unless NCCL can use "
        "DMA-BUF: "
        "NCCL >= 2.19 with the open kernel modules and Linux >= 5.12). NCCL then stages every "
        "transfer through "
        "host memory: the log shows \"GPU Direct RDMA Disabled for HCA\", channels read \"via "
        "NET/IB/0\" "
        "without /GDRDMA, and inter-node bandwidth drops by about half while CPU load rises.";
    f.fix =
        "sudo modprobe nvidia_peermem, and load it at boot: echo nvidia_peermem | sudo tee "
        "/etc/modules-load.d/nvidia-peermem.conf. It ships with the NVIDIA driver (>= 470); if "
        "modprobe fails, the "
        "driver was installed before MLNX_OFED/DOCA-OFED: reinstall the driver. Azure HPC images "
        "load it already.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_gpudirect_rdma_disabled() {
  return std::make_unique<GpudirectRdmaDisabled>();
}

}  // namespace trainready
