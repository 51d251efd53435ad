// nccl-p2p-disabled: GPUs in one node talk through host memory instead of P2P (NVLink / PCIe).
#include <map>

#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class NcclP2pDisabled : public Rule {
 public:
  std::string_view id() const override { return "nccl-p2p-disabled"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "GPUs in one node do not use P2P (NVLink / PCIe), only shared memory";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const EnvSetting* env = nullptr;
    if (auto it = f.env.find("NCCL_P2P_DISABLE"); it != f.env.end() && it->second.value != "0")
      env = &it->second;
    const TransportUse* shm = nullptr;
    bool p2p = false;
    for (const auto& [k, t] : f.transports) {
      if (t.kind == TransportKind::kShm) shm = &t;
      if (t.kind == TransportKind::kP2p) p2p = true;
    }
    if (!env && (!shm || p2p)) return {};
    RuleOutcome o;
    Finding x = finding(env ? "NCCL_P2P_DISABLE=" + env->value +
                                  " is set: GPUs in a node exchange data through host memory"
                            : "Connections inside a node use SHM (host shared memory), none P2P: "
                              "NVLink / PCIe peer-to-peer is not available to NCCL");
    if (env) x.evidence.push_back(evidence(env->line));
    if (shm) x.evidence.push_back(evidence(shm->example));
    // NVLS set up: NCCL found NVSwitch multicast, so the GPUs are NVLink-connected and SHM was
    // chosen by a decision, not for want of a link (p2pCanConnect: ncclTopoCheckP2p against
    // NCCL_P2P_LEVEL / NCCL_P2P_DISABLE, then cudaDeviceCanAccessPeer; src/transport/p2p.cc
    // @ v2.20.5-1).
    const bool nvlink = !env && f.nvls_setup.has_value();
    if (nvlink) {
      x.message =
          "Connections inside a node use SHM (host shared memory), none P2P, although NCCL set "
          "up NVLink SHARP (NVLS) on these GPUs: P2P over NVLink was turned off";
      x.evidence.push_back(evidence(*f.nvls_setup));
    }
    x.cause = env ? "The variable turns P2P off for every rank."
              : nvlink
                  ? "NVLS buffers are set up only on GPUs joined by NVSwitch, so NVLink is there; "
                    "NCCL still chose SHM between them, which p2pCanConnect does when "
                    "NCCL_P2P_DISABLE or NCCL_P2P_LEVEL (in the environment or /etc/nccl.conf, "
                    "~/.nccl.conf) rules P2P out, or when CUDA reports no peer access between "
                    "the two devices (cudaDeviceCanAccessPeer, src/transport/p2p.cc @ v2.20.5-1)."
                  : "The GPUs cannot reach each other's memory: no NVLink and PCIe P2P blocked "
                    "(GPUs under different CPU sockets, ACS / IOMMU on, a VM without P2P, or "
                    "consumer GPUs).";
    x.fix = env ? "Remove NCCL_P2P_DISABLE unless it works around a known hang."
            : nvlink
                ? "Look for NCCL_P2P_DISABLE / NCCL_P2P_LEVEL in every rank's environment and in "
                  "/etc/nccl.conf and ~/.nccl.conf, and remove them; then check "
                  "`nvidia-smi topo -p2p r` (OK between the GPUs) and rerun with "
                  "NCCL_DEBUG_SUBSYS=INIT,P2P to see NCCL's P2P decision."
                : "Check `nvidia-smi topo -m` (NV# links or PIX/PXB are good) and "
                  "`nvidia-smi topo -p2p r`; on bare metal disable ACS for the GPU switches.";
    x.rank = 10;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_p2p_disabled() { return std::make_unique<NcclP2pDisabled>(); }

}  // namespace trainready
