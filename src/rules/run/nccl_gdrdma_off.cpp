// nccl-gdrdma-off: inter-node InfiniBand traffic without GPUDirect RDMA.
#include <cstdio>

#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// A network that moves data through host memory by design: its devices report "GPU Direct RDMA
// Disabled" (graph/topo.cc prints it for every network from 2.13.4) and its connections carry no
// GDRDMA, which is no fault to repair. Google's FastSocket plugin (google/nccl-fastsocket
// net_fastsocket.cc:1478 @b3ff1c6: props->ptrSupport = NCCL_PTR_HOST), like NCCL's own Socket
// transport, whose lines and connections are read apart (socket_line, TransportKind::kNetSocket).
bool host_memory_only(std::string_view net) { return net == "FastSocket"; }

// "NET/FastSocket/0" -> "FastSocket"
std::string_view net_of_label(std::string_view label) {
  if (label.substr(0, 4) != "NET/") return {};
  label.remove_prefix(4);
  return label.substr(0, label.find('/'));
}

class NcclGdrdmaOff : public Rule {
 public:
  std::string_view id() const override { return "nccl-gdrdma-off"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "NCCL moves inter-node data through host memory (no GPUDirect RDMA)";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  // Every connection line of `t` (no GPUDirect RDMA) is a send, and the same transport's receives
  // used GPUDirect RDMA: the NIC can reach the GPU's memory, and NCCL chose not to read it for
  // sends (its GDR-read policy), which is not a fault.
  static bool gdr_read_policy(const NcclRunFacts& f, const TransportUse& t) {
    if (t.gdrdma || t.sends == 0 || t.sends != t.connections) return false;
    auto it = f.transports.find(t.label + "/GDRDMA");
    return it != f.transports.end() && it->second.receives > 0;
  }

  RuleOutcome gdr_read_note(const NcclRunFacts& f, const TransportUse& t) const {
    RuleOutcome o;
    Finding x = finding(std::to_string(t.sends) + " inter-node send connection(s) via " + t.label +
                        " read GPU memory through host memory while the receives use GPUDirect "
                        "RDMA: NCCL's GDR-read choice for sends (NCCL_NET_GDR_READ), not a "
                        "peer-memory fault");
    x.severity = Severity::kInfo;
    x.evidence.push_back(evidence(t.example));
    if (auto it = f.transports.find(t.label + "/GDRDMA"); it != f.transports.end())
      x.evidence.push_back(evidence(it->second.example));
    auto env = f.env.find("NCCL_NET_GDR_READ");
    if (env != f.env.end()) x.evidence.push_back(evidence(env->second.line));
    x.rank = 20;
    x.cause =
        "For a send, NCCL lets the NIC read GPU memory directly (GPUDirect RDMA read) only where "
        "NCCL_NET_GDR_READ allows it: by default for a GPU with an NVLink to another GPU from "
        "NCCL 2.4.2 (and for the only GPU of a node from 2.6.4), and from 2.19.1 also for every "
        "GPU of compute capability 8.0 or later; NCCL_NET_GDR_READ=0 turns it off "
        "(ncclTopoCheckGdr, "
        "graph/paths.cc v2.19.1-1; netGetGdrSupport, transport/net.cc v2.4.8-1). The receives "
        "of the same transport use GPUDirect RDMA, so the peer-memory path works.";
    if (env != f.env.end()) x.cause += " This run sets NCCL_NET_GDR_READ.";
    x.fix =
        "Nothing to repair. To see whether direct reads help on this PCIe topology, rerun "
        "nccl-tests with NCCL_NET_GDR_READ=1 and compare the bus bandwidth.";
    x.subsumes = {"gpudirect-rdma-disabled"};
    o.findings.push_back(std::move(x));
    return o;
  }

  // RCCL (AMD GPUs) has its own peer-memory check: nvidia-peermem plays no part.
  static void amd_gpu_cause(Finding& x) {
    x.cause =
        "This is RCCL, on AMD GPUs: it enables GPUDirect RDMA only when it finds the AMD GPU's "
        "peer-memory interface - /sys/kernel/mm/memory_peers/amdkfd/version (or under "
        "/sys/kernel/memory_peers, /sys/memory_peers), or ib_register_peer_memory_client in "
        "/proc/kallsyms - which the amdgpu DKMS driver and the NIC vendor's RDMA stack "
        "(MLNX_OFED / DOCA-OFED) provide and the upstream drivers do not; or DMA-BUF "
        "(NCCL_DMABUF_ENABLE=1, ROCm 6.2 or later, a kernel with CONFIG_DMABUF_MOVE_NOTIFY and "
        "CONFIG_PCI_P2PDMA). On a Hyper-V VM (Azure) it also turns GPUDirect RDMA off when NUMA "
        "balancing is on and NCCL_IB_PCI_RELAXED_ORDERING=0. nvidia-peermem plays no part. "
        "(sources: ROCm/rccl src/transport/net_ib.cc:568-640 (ncclIbGdrSupport), "
        "src/misc/rocmwrap.cc:102-152 @ develop 0cbce2a7; ROCm/amdgpu#102)";
    x.fix =
        "On every host install the amdgpu DKMS driver of the ROCm release and the NIC's DKMS "
        "RDMA stack (then ls /sys/kernel/mm/memory_peers/amdkfd/version), or use DMA-BUF with "
        "NCCL_DMABUF_ENABLE=1 on ROCm 6.2 or later; then rerun.";
  }

  // Which peer-memory check the run's NCCL makes decides what "Disabled for HCA" means.
  RuleOutcome hca_disabled(const NcclRunFacts& f,
                           const std::vector<const NcclNetDevice*>& off) const {
    RuleOutcome o;
    std::set<std::string> names;
    for (const auto* d : off) names.insert(d->name);
    Finding x = finding("NCCL disabled GPUDirect RDMA for HCA " + join_limited(names) +
                        ": inter-node traffic will be staged through host memory");
    for (const auto* d : off)
      if (x.evidence.size() < 4) x.evidence.push_back(evidence(d->example));
    x.rank = 80;
    if (!f.rccl_versions.empty()) {
      amd_gpu_cause(x);
      x.subsumes = {"gpudirect-rdma-disabled"};
      o.findings.push_back(std::move(x));
      return o;
    }
    const std::string v = f.versions.size() == 1 ? f.versions.begin()->first : "";
    int a = 0, b = 0, c = 0;
    const bool known = !v.empty() && std::sscanf(v.c_str(), "%d.%d.%d", &a, &b, &c) >= 2;
    const long code = known ? a * 10000L + b * 100L + c : -1;
    const std::string old_check =
        "NCCL 2.22 and older detect peer memory only through "
        "/sys/kernel/mm/memory_peers/nv_mem (the MLNX_OFED peer-memory interface), so on the "
        "inbox RDMA stack (DGX OS 25.01, distributions without MLNX_OFED) nvidia_peermem is "
        "loaded and still not seen; NCCL 2.23.4 added the check for the nvidia_peermem module.";
    if (known && code < 22304) {
      x.evidence.push_back({"NCCL version " + v, {}});
      x.cause = old_check;
      x.fix =
          "Upgrade NCCL to 2.23.4 or later (or patch the check), or install MLNX_OFED so "
          "nv_mem is registered; check `lsmod | grep peermem` on every host.";
    } else if (known) {
      x.evidence.push_back({"NCCL version " + v, {}});
      x.cause =
          "NCCL " + v +
          " found neither the nvidia_peermem module nor DMA-BUF support: the "
          "module is not loaded, or the driver / kernel cannot export GPU memory (DMA-BUF needs "
          "the open kernel modules and Linux 5.12 or later).";
      x.fix =
          "`modprobe nvidia-peermem` on every host (Azure HPC images load it at boot), or use "
          "the open GPU kernel modules for DMA-BUF; then rerun.";
    } else {
      x.cause =
          "The peer-memory path NCCL looks for is missing: the nvidia_peermem module is not "
          "loaded, or (" +
          old_check + ")";
      x.fix =
          "Check `lsmod | grep peermem` and the NCCL version on every host: load "
          "nvidia-peermem, and with NCCL 2.22 or older upgrade to 2.23.4 or later.";
    }
    x.cause += " (sources: NVIDIA/nccl#1676; net_ib.cc v2.22.3-1 vs v2.23.4-1)";
    x.subsumes = {"gpudirect-rdma-disabled"};
    o.findings.push_back(std::move(x));
    return o;
  }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const TransportUse* plain = nullptr;
    const TransportUse* gdr = nullptr;
    const TransportUse* sends_only = nullptr;
    for (const auto& [k, t] : f.transports) {
      if (t.kind != TransportKind::kNetIb && t.kind != TransportKind::kNetOther) continue;
      if (host_memory_only(net_of_label(t.label))) continue;
      if (t.gdrdma)
        gdr = &t;
      else if (gdr_read_policy(f, t))
        sends_only = sends_only ? sends_only : &t;
      else if (!plain)
        plain = &t;
    }
    if (!plain && sends_only) return gdr_read_note(f, *sends_only);
    if (!plain) {
      if (!gdr) {
        // "GPU Direct RDMA Disabled for HCA" is a finding on its own, before any connection.
        std::vector<const NcclNetDevice*> off;
        bool host_only = false;
        for (const auto& d : f.net_devices) {
          if (!d.gdr || *d.gdr) continue;
          if (host_memory_only(d.net))
            host_only = true;
          else
            off.push_back(&d);
        }
        if (off.empty() && host_only && f.transports.empty())
          return RuleOutcome::does_not_apply(
              "the network NCCL reports on (a socket transport) moves data through host memory "
              "by design: it has no GPUDirect RDMA to turn on");
        // A run whose connections were all inside one node needs no inter-node advice; a log
        // with no connection lines (an excerpt) cannot tell, so it gets the finding.
        if (!off.empty() && (f.multi_node() || f.transports.empty())) return hca_disabled(f, off);
      }
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
      if (d.gdr && !*d.gdr && !host_memory_only(d.net)) {
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
    // aws-ofi-nccl names its network "AWS Libfabric" (older builds) or "Libfabric"; "OFI" in
    // builds of the plugin outside AWS (src/nccl_ofi_interface_nvidia.cpp @ v1.21.1).
    const bool ofi = plain->label.find("Libfabric") != std::string::npos ||
                     plain->label.find("OFI") != std::string::npos;
    if (ofi) {
      // The plugin's own lines when it turned GPUDirect RDMA off (nccl_ofi_ofiutils.cpp:362)
      // and when it set NCCL_PROTO=simple for want of it (nccl_ofi_net.cpp:405-409, :965;
      // "(reason: GDR not supported)" in 1.15), at INFO.
      for (const auto* lines : {&f.failure_info, &f.unrecognised})
        for (const LogLine& l : *lines)
          if ((l.text.find("disabling GDR") != std::string::npos ||
               l.text.find("GDR not supported") != std::string::npos) &&
              x.evidence.size() < 4)
            x.evidence.push_back(evidence(l));
      x.cause =
          "The network is the aws-ofi-nccl plugin over libfabric (EFA). It offers NCCL GPU memory "
          "only where the EFA device can register it for RDMA read; otherwise it reports host "
          "memory only and NCCL stages through it. That is the hardware on p3dn.24xlarge: its "
          "EFA has no GPUDirect RDMA (the plugin's platform table marks p3dn gdr_required=false, "
          "and its doc/efa-env-var.md names p4 and p5 as the instances with both). On p4d and "
          "later the plugin refuses to "
          "run without it ('GDR disabled on GDR-supported instance type'), so host-staged "
          "connections there mean an old plugin or libfabric, or an EFA provider that declined "
          "CUDA memory. nvidia-peermem is not the missing piece: the EFA kernel driver pins GPU "
          "memory itself (nvidia_p2p_get_pages). (sources: aws-ofi-nccl v1.21.1 "
          "src/platform-aws.cpp:110-120, :819, src/nccl_ofi_ofiutils.cpp:345-373, "
          "src/nccl_ofi_net.cpp:488-492, doc/efa-env-var.md:91-92; libfabric v1.18.0 "
          "prov/efa/src/efa_hmem.c; amzn-drivers efa_nvmem_impl.h)";
      x.fix =
          "On p3dn.24xlarge nothing is broken: expect host staging, or move to p4d or later for "
          "GPUDirect RDMA. On p4d and later, install the EFA installer's libfabric and a "
          "current aws-ofi-nccl in the image, and rerun with FI_LOG_LEVEL=warn to see why the "
          "EFA provider declined CUDA memory ('Failed to register CUDA buffer with the EFA "
          "device').";
    } else if (!f.rccl_versions.empty()) {
      amd_gpu_cause(x);
    } else if (reasons.find("no module") != std::string::npos ||
               reasons.find("not supported by GPU") != std::string::npos) {
      // Before 2.5 "(not supported by GPU)" is printed for a missing module too
      // (src/transport/net_ib.cu:226 @ v2.3.7-1; parsers/nccl_log_info.cpp).
      x.cause =
          "The nvidia-peermem kernel module is not loaded, or GPU memory could not be "
          "registered with the HCA (NCCL says '" +
          reasons + "').";
      x.fix =
          "Load it (`modprobe nvidia-peermem`; Azure HPC images load it at boot), or upgrade "
          "to NCCL 2.13 or later, which registers GPU memory through DMA-BUF where the driver "
          "(open kernel modules) and Linux 5.12+ support it (ncclIbDmaBufSupport, net_ib.cc "
          "v2.13.4-1; the '(no module)' wording is 2.4-2.12's), then rerun.";
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
