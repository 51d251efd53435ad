// framework-custom-allreduce-failed: vLLM's (or SGLang's) own all-reduce kernel, which runs
// instead of NCCL for small tensors within one node, failed a CUDA call and ended the process.
#include "rules/rule_factories.h"
#include "rules/run/framework_evidence.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class FrameworkCustomAllReduce : public Rule {
 public:
  std::string_view id() const override { return "framework-custom-allreduce-failed"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "vLLM's / SGLang's custom all-reduce (not NCCL) failed a CUDA call";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const auto events = framework_events(f.framework, {FrameworkEventKind::kCustomAllReduce});
    if (events.empty()) return {};
    const FrameworkEvent& e = *events.front();
    Finding x = finding(e.framework +
                        "'s custom all-reduce (its own kernel, not NCCL) failed: "
                        "CUDA '" +
                        e.detail + "'");
    for (std::size_t i = 0; i < events.size() && i < 4; ++i)
      x.evidence.push_back(framework_evidence(*events[i]));
    // vLLM csrc/custom_all_reduce.cuh: the peers' buffers are opened with
    // cudaIpcOpenMemHandle(..., cudaIpcMemLazyEnablePeerAccess) under CUDACHECK, which prints
    // cudaGetErrorString() and exits; cudaErrorPeerAccessUnsupported's text is "peer access is
    // not supported between these two devices" (CUDA runtime API, cudaError_t).
    const bool peer = e.detail.find("peer access") != std::string::npos;
    x.cause =
        peer ? "The custom all-reduce reads the other GPUs' buffers directly: it opens them with "
               "CUDA IPC and peer access (cudaIpcOpenMemHandle with "
               "cudaIpcMemLazyEnablePeerAccess), and these GPUs cannot access each other's "
               "memory (no NVLink, and no PCIe peer-to-peer between them: GPUs under different "
               "PCIe root ports or CPU sockets, a VM or platform that disables P2P). NCCL would "
               "have fallen back to shared memory; the custom kernel has no fallback."
             : "The custom all-reduce kernel's CUDA call failed ('" + e.detail +
                   "'); it maps the other GPUs' buffers with CUDA IPC and peer access, so a "
                   "platform without GPU peer-to-peer, or a GPU in a bad state, fails it.";
    x.fix =
        "Turn the custom all-reduce off so the collective runs on NCCL: vLLM "
        "--disable-custom-all-reduce (LLM(..., disable_custom_all_reduce=True)), SGLang "
        "--disable-custom-all-reduce. Confirm the GPUs' peer access with nvidia-smi topo -p2p p "
        "(and nvidia-smi topo -m for the path between them).";
    x.rank = 60;
    RuleOutcome o;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_framework_custom_allreduce_failed() {
  return std::make_unique<FrameworkCustomAllReduce>();
}

}  // namespace trainready
