// gpudirect-rdma-disabled: NVIDIA GPUs and InfiniBand, but neither GPUDirect RDMA path open: no
// peer-memory module, and DMA-BUF (NVIDIA's recommended path) not usable on this node. When
// DMA-BUF is usable, an info finding says GPUDirect RDMA will take that path.
#include <cstdio>
#include <optional>
#include <utility>

#include "core/text.h"
#include "queries/node_queries.h"
#include "rules/rule_factories.h"

namespace trainready {
namespace {

enum class Tri { kNo, kYes, kUnknown };

// "5.15.0-1073-azure" / "2.21.5" -> {major, minor}.
std::optional<std::pair<int, int>> major_minor(const std::string& v) {
  int a = 0, b = 0;
  if (std::sscanf(v.c_str(), "%d.%d", &a, &b) != 2) return std::nullopt;
  return std::make_pair(a, b);
}

struct DmabufVerdict {
  Tri usable = Tri::kUnknown;
  std::vector<Evidence> evidence;
  std::string missing;  // the conditions that fail, for the cause
  std::string unknown;  // the facts that could not be read
};

// DMA-BUF GPUDirect RDMA: the open GPU kernel module (NVIDIA GPU Operator "GPUDirect RDMA and
// GPUDirect Storage"; NVIDIA/nccl#1474), Linux >= 5.12 (ibv_reg_dmabuf_mr landed in 5.12:
// aws/aws-ofi-nccl#618), NCCL >= 2.13 (NVIDIA/nccl#778: 2.13 registers with
// ibv_reg_dmabuf_mr), and NCCL_DMABUF_ENABLE not 0.
DmabufVerdict dmabuf_usable(const NodeFacts& n) {
  DmabufVerdict d;
  std::vector<std::string> no, unknown;
  const Fact<std::string>& flavor = n.modules->nvidia_flavor;
  if (!flavor.ok()) {
    unknown.push_back("NVIDIA module flavor " + flavor.describe());
  } else {
    d.evidence.push_back({"NVIDIA kernel module: " + flavor.value, flavor.where});
    if (flavor.value != "open")
      no.push_back("the open GPU kernel module (this one is proprietary)");
  }
  if (!n.host.ok() || n.host->kernel.empty()) {
    unknown.push_back("kernel version " + n.host.describe());
  } else if (auto k = major_minor(n.host->kernel); !k) {
    unknown.push_back("kernel version '" + n.host->kernel + "' not understood");
  } else {
    d.evidence.push_back({"kernel " + n.host->kernel, n.host.where});
    if (*k < std::make_pair(5, 12)) no.push_back("Linux >= 5.12 (this is " + n.host->kernel + ")");
  }
  if (!n.nccl_version.ok()) {
    unknown.push_back("NCCL version " + n.nccl_version.describe());
  } else if (auto v = major_minor(n.nccl_version.value); !v) {
    unknown.push_back("NCCL version '" + n.nccl_version.value + "' not understood");
  } else {
    d.evidence.push_back({"NCCL " + n.nccl_version.value, n.nccl_version.where});
    if (*v < std::make_pair(2, 13))
      no.push_back("NCCL >= 2.13 (this is " + n.nccl_version.value + ")");
  }
  if (n.nccl.ok()) {
    if (auto e = n.nccl->lookup("NCCL_DMABUF_ENABLE"); e && trim(e->first) == "0") {
      d.evidence.push_back({"NCCL_DMABUF_ENABLE=0", e->second});
      no.push_back("NCCL_DMABUF_ENABLE not set to 0");
    }
  }
  for (const auto& s : no) d.missing += (d.missing.empty() ? "" : ", ") + s;
  for (const auto& s : unknown) d.unknown += (d.unknown.empty() ? "" : "; ") + s;
  if (!no.empty())
    d.usable = Tri::kNo;
  else if (!unknown.empty())
    d.usable = Tri::kUnknown;
  else
    d.usable = Tri::kYes;
  return d;
}

class GpudirectRdmaDisabled final : public Rule {
 public:
  std::string_view id() const override { return "gpudirect-rdma-disabled"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "GPUDirect RDMA unavailable (no nvidia_peermem, no usable DMA-BUF)";
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.modules.ok()) return RuleOutcome::skip("kernel modules " + n.modules.describe());
    RuleOutcome out;
    std::string why;
    const SkuEntry* sku = sku_of(n, ctx, why);
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
    // No peer-memory module: GPUDirect RDMA can still take the DMA-BUF path, which NVIDIA
    // recommends over nvidia-peermem. Decide from what the node shows.
    const DmabufVerdict d = dmabuf_usable(n);
    if (d.usable == Tri::kUnknown)
      return RuleOutcome::skip(
          "nvidia_peermem is not loaded, and whether GPUDirect RDMA can use DMA-BUF instead "
          "is unknown: " +
          d.unknown);
    if (d.usable == Tri::kYes) {
      Finding f = finding(
          "nvidia_peermem is not loaded: GPUDirect RDMA will use DMA-BUF, NVIDIA's recommended "
          "path");
      f.severity = Severity::kInfo;
      f.evidence = d.evidence;
      f.evidence.push_back(
          {"nvidia_peermem and nv_peer_mem absent from /proc/modules", n.modules.where});
      f.cause =
          "The open GPU kernel module, Linux >= 5.12 and NCCL >= 2.13 register GPU memory with "
          "the HCA through DMA-BUF (ibv_reg_dmabuf_mr); the legacy nvidia-peermem module is not "
          "needed. The NCCL log shows \"DMA-BUF\" and /GDRDMA on the NET/IB channels.";
      f.fix =
          "Nothing to do. Confirm with NCCL_DEBUG=INFO that channels read via NET/IB/x/GDRDMA; if "
          "NCCL warns that ibv_reg_dmabuf_mr failed, the RDMA stack (rdma-core >= 41 / DOCA-OFED) "
          "is too old: update it, or load nvidia_peermem.";
      out.findings.push_back(std::move(f));
      return out;
    }
    Finding f = finding(
        "nvidia_peermem is not loaded and DMA-BUF is not usable: NCCL cannot use "
        "GPUDirect RDMA");
    f.evidence.push_back(
        {"nvidia_peermem and nv_peer_mem absent from /proc/modules", n.modules.where});
    for (const Evidence& e : d.evidence) f.evidence.push_back(e);
    f.evidence.push_back(basis);
    f.cause =
        "Neither GPUDirect RDMA path is open: no peer-memory module, and DMA-BUF needs " +
        d.missing +
        ". NCCL then stages every transfer through host memory: the log shows \"GPU Direct RDMA "
        "Disabled for HCA\", channels read \"via NET/IB/0\" without /GDRDMA, and inter-node "
        "bandwidth drops by about half while CPU load rises.";
    f.fix =
        "Either open the DMA-BUF path NVIDIA recommends (the open GPU kernel modules, default "
        "from driver 560; Linux >= 5.12; NCCL >= 2.13; NCCL_DMABUF_ENABLE unset or 1), or load "
        "the legacy module: sudo modprobe nvidia_peermem, and at boot: echo nvidia_peermem | "
        "sudo tee /etc/modules-load.d/nvidia-peermem.conf (it ships with the driver >= 470; if "
        "modprobe fails, the driver was installed before MLNX_OFED/DOCA-OFED: reinstall it). "
        "Azure HPC images load nvidia_peermem.";
    out.findings.push_back(std::move(f));
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_gpudirect_rdma_disabled() {
  return std::make_unique<GpudirectRdmaDisabled>();
}

}  // namespace trainready
