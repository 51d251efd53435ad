// framework-backend-not-nccl: a GPU job whose framework initialised gloo (or another non-NCCL
// backend), or whose build has no NCCL: its collectives go through host memory and TCP.
#include "rules/rule_factories.h"
#include "rules/run/framework_evidence.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

class FrameworkBackendNotNccl : public Rule {
 public:
  std::string_view id() const override { return "framework-backend-not-nccl"; }
  Severity severity() const override { return Severity::kWarning; }
  std::string_view title() const override {
    return "The training framework is not configured with backend='nccl'";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    const FrameworkEvent* missing = f.framework.first(FrameworkEventKind::kNcclUnavailable);
    const FrameworkEvent* other = nullptr;
    for (const auto& e : f.framework.events)
      if (!other && e.kind == FrameworkEventKind::kBackend && e.detail != "nccl" &&
          e.detail.find("nccl") == std::string::npos)
        other = &e;
    const FrameworkEvent* gpu = f.framework.first(FrameworkEventKind::kGpuInUse);
    // gloo is right for a CPU job: only a job that shows it runs on GPUs is judged.
    if (!missing && !(other && gpu)) return {};
    // XLA's stub could not load libnccl at run time; PyTorch's build has none.
    const bool xla = missing && missing->framework == "XLA";
    Finding x = finding(
        xla       ? "XLA (JAX or TensorFlow) could not load the NCCL library: its multi-GPU "
                    "collectives fail"
        : missing ? "The framework's PyTorch build has no NCCL: distributed GPU training cannot "
                    "use it"
                  : other->framework + " initialised the '" + other->detail +
                        "' backend for a job that runs on GPUs, not 'nccl'");
    if (missing) x.evidence.push_back(framework_evidence(*missing));
    if (other) x.evidence.push_back(framework_evidence(*other));
    if (gpu) x.evidence.push_back(framework_evidence(*gpu));
    if (xla) {
      x.cause =
          "XLA calls NCCL through a stub that opens libnccl.so.2 when the first collective "
          "runs (openxla/xla xla/tsl/cuda/nccl_stub.cc); the dynamic loader found no loadable "
          "copy, so every NCCL call returned ncclSystemError. A JAX install that uses the "
          "machine's own CUDA (jax[cuda12_local]) does not bring NCCL with it, unlike "
          "jax[cuda12], which pulls in the nvidia-nccl-cu12 wheel (its with_cuda extra, "
          "jax_plugins/cuda/plugin_setup.py).";
      x.fix =
          "Install NCCL where the loader finds it (pip install nvidia-nccl-cu12 beside "
          "jax[cuda12_local], or the distribution's libnccl2 package; or add its lib directory "
          "to LD_LIBRARY_PATH), then rerun. Confirm: `python -c \"import ctypes; "
          "ctypes.CDLL('libnccl.so.2')\"` succeeds in the job's environment.";
      x.severity = Severity::kError;
      x.rank = 70;
    } else {
      x.cause = missing
                    ? "torch.distributed was built without NCCL (a CPU-only or ROCm wheel, a "
                      "Windows or macOS build, or a source build with USE_NCCL=0), so "
                      "init_process_group(backend='nccl') fails and scripts fall back to gloo."
                    : "With gloo, every collective copies GPU tensors to host memory and sends "
                      "them over TCP sockets: no NVLink, no InfiniBand / RoCE, no GPUDirect RDMA. "
                      "Scripts pick gloo when the backend is hard-coded, when a fallback "
                      "(`'nccl' if torch.cuda.is_available() else 'gloo'`) ran before CUDA was "
                      "visible, or when the launcher's config says so.";
      x.fix = missing
                  ? "Install a CUDA build of PyTorch (`python -c \"import torch.distributed as d; "
                    "print(d.is_nccl_available())\"` must print True)."
                  : "Configure the framework with backend='nccl' (init_process_group(backend="
                    "'nccl'); DeepSpeed dist_backend / deepspeed.init_distributed('nccl'); "
                    "Accelerate and Lightning pick nccl when CUDA is visible; Megatron-LM "
                    "--distributed-backend nccl), then check the log shows 'NCCL INFO' lines.";
      x.rank = 25;
    }
    RuleOutcome o;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_framework_backend_not_nccl() {
  return std::make_unique<FrameworkBackendNotNccl>();
}

}  // namespace trainready
