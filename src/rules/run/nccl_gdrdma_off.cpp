// nccl-gdrdma-off: inter-node InfiniBand traffic without GPUDirect RDMA.
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclGdrdmaOff : public Rule {
 public:
  std::string_view id() const override { return "nccl-gdrdma-off"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "NCCL moves inter-node data through host memory (no GPUDirect RDMA)";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const TransportUse* plain = nullptr;
    const TransportUse* gdr = nullptr;
    for (const auto& [k, t] : f.transports) {
      if (t.kind != TransportKind::kNetIb && t.kind != TransportKind::kNetOther) continue;
      if (t.gdrdma)
        gdr = &t;
      else if (!plain)
        plain = &t;
    }
    if (!plain) {
      if (!gdr && f.transports.empty())
        return RuleOutcome::skip("the log shows no connections (NCCL_DEBUG=INFO prints them)");
      return {};
    }
    RuleOutcome o;
    Finding x = finding(std::to_string(plain->connections) + " inter-node connection(s) via " +
                        plain->label + " without GDRDMA: data is staged through host memory");
    x.evidence.push_back(evidence(plain->example));
    std::string reasons;
    for (const auto& d : f.net_devices) {
      if (d.gdr && !*d.gdr) {
        x.evidence.push_back(evidence(d.example));
        if (!d.gdr_reason.empty() && reasons.find(d.gdr_reason) == std::string::npos)
          reasons += (reasons.empty() ? "" : ", ") + d.gdr_reason;
      }
    }
    if (f.gdr_disabled_by_distance) x.evidence.push_back(evidence(*f.gdr_disabled_by_distance));
    if (auto it = f.env.find("NCCL_NET_GDR_LEVEL"); it != f.env.end())
      x.evidence.push_back(evidence(it->second.line));
    if (gdr)
      x.message += "; other connections did use GDRDMA (" + std::to_string(gdr->connections) +
                   "), so ranks disagree";
    if (reasons.find("no module") != std::string::npos) {
      x.cause = "The nvidia-peermem kernel module is not loaded (NCCL says '(no module)').";
      x.fix =
          "Load it (`modprobe nvidia-peermem`; Azure HPC images load it at boot) or use "
          "DMA-BUF (NCCL >= 2.19 with open kernel modules), then rerun.";
    } else if (f.gdr_disabled_by_distance) {
      x.cause =
          "The GPU and the HCA are too far apart in the PCI topology for NCCL's default "
          "GDR level, or the topology NCCL saw is wrong (a missing NCCL_TOPO_FILE on "
          "Azure ND VMs hides the real layout).";
      x.fix =
          "On Azure ND sizes set NCCL_TOPO_FILE to the image's topology file "
          "(/opt/microsoft/ndv4-topo.xml, ndv5-topo.xml); elsewhere check "
          "NCCL_NET_GDR_LEVEL and that every rank gets the same value.";
    } else {
      x.cause =
          "NCCL did not enable GPUDirect RDMA for these HCAs: the peer-memory module "
          "(nvidia-peermem) or DMA-BUF support is missing, the HCA does not support it "
          "(Omni-Path hfi1, some RoCE NICs), or NCCL_NET_GDR_LEVEL excludes it.";
      x.fix =
          "Check `lsmod | grep peermem` on every node, and NCCL_NET_GDR_LEVEL / "
          "NCCL_TOPO_FILE; `trainready doctor` reports the module.";
    }
    x.subsumes = {"gpudirect-rdma-disabled"};
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_gdrdma_off() { return std::make_unique<NcclGdrdmaOff>(); }

}  // namespace trainready
