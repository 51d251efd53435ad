// dcgm-diag-failed: a `dcgmi diag` run reports a test as Fail (or Warn), per test and GPU.
#include "rules/rule_factories.h"

namespace trainready {
namespace {

bool internal_error(const DcgmDiagTest& t) {
  for (const auto& w : t.warnings)
    if (w.find("internal error during the test") != std::string::npos ||
        w.find("child process") != std::string::npos)
      return true;
  return false;
}

// "system has unsupported display driver / cuda driver combination" (cudaErrorSystemDriverMismatch)
// or "CUDA driver version is insufficient": the CUDA runtime DCGM runs does not match the host's
// driver, which fails every CUDA-based test before it touches the GPU.
bool cuda_mismatch(const DcgmDiagTest& t) {
  for (const auto& w : t.warnings)
    if (w.find("unsupported display driver / cuda driver combination") != std::string::npos ||
        w.find("CUDA driver version is insufficient") != std::string::npos)
      return true;
  return false;
}

// What a failure in each category usually means (DCGM user guide, "Diagnostics").
std::string cause_of(const DcgmDiagTest& t) {
  if (cuda_mismatch(t))
    return "The CUDA runtime the diagnostic runs does not match the host's NVIDIA driver "
           "(\"unsupported display driver / cuda driver combination\"): the test could not start "
           "on the GPU, which says nothing about the hardware. Typical in a DCGM container built "
           "for another driver branch (NVIDIA/nvidia-docker#1256).";
  if (internal_error(t))
    return "The diagnostic itself broke (a helper process exited or printed nothing it could "
           "parse): every GPU can still pass, as the per-GPU results here may show. Seen with a "
           "missing CUDA-version plugin package (DCGM 4.4 with CUDA 13) and with runs confined "
           "by a Slurm job's cgroup (NVIDIA/DCGM#253).";
  if (t.category == "Deployment")
    return "A deployment check failed: the node is not set up as DCGM expects (persistence "
           "mode, CUDA/NVML libraries, environment variables, pending page retirement or row "
           "remap, graphics processes, inforom).";
  if (t.category == "Hardware")
    return "A hardware test failed on the GPU (memory test or the GPU diagnostic): a GPU fault "
           "until shown otherwise.";
  if (t.category == "Integration")
    return "The PCIe/NVLink test failed: bandwidth or latency to the GPU is below its "
           "threshold, or the GPU could not be used for the test.";
  if (t.category == "Stress")
    return "A stress test (targeted stress or power, memory bandwidth, EUD) failed: the GPU "
           "cannot sustain its rated performance (clocks, power, thermals or memory).";
  return "A DCGM diagnostic test failed.";
}

std::string fix_of(const DcgmDiagTest& t) {
  if (cuda_mismatch(t))
    return "Run DCGM built for this driver's CUDA major version (the dcgm / dcgm-exporter image "
           "tag matching the driver, or the host's datacenter-gpu-manager package), then rerun "
           "the diagnostic. Do not return the GPU on this result alone.";
  if (internal_error(t))
    return "Rerun the test alone on an idle node outside a job (`dcgmi diag -r " + t.name +
           "`) and read /var/log/nvidia-dcgm/nvvs.log; install the DCGM plugin package for the "
           "driver's CUDA major version. Do not return the GPU on this result alone.";
  if (t.category == "Deployment")
    return "Read the warning text; fix the setting it names (e.g. `nvidia-smi -pm 1`), reset "
           "the GPU for a pending remap, and rerun `dcgmi diag -r 1`.";
  return "Rerun `dcgmi diag -r 3` on an idle node; if the same GPU fails again, take the node "
         "out of service and report it (Azure: support request with the output; bare metal: "
         "RMA with the DCGM log).";
}

class DcgmDiagFailed final : public Rule {
 public:
  std::string_view id() const override { return "dcgm-diag-failed"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "DCGM diagnostic test failed"; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NodeFacts& n = *ctx.node;
    if (!n.dcgm_diag.ok())
      return RuleOutcome::does_not_apply("no dcgmi diag capture given (doctor --capture FILE)");
    RuleOutcome out;
    int skipped = 0;
    for (const DcgmDiagTest& t : n.dcgm_diag->tests) {
      if (t.result == "Skip") ++skipped;
      const bool fail = t.result == "Fail";
      const bool warn = t.result == "Warn";
      if (!fail && !warn) continue;
      std::string gpus;
      for (const auto& [gpu, r] : t.per_gpu)
        if (r == t.result) gpus += (gpus.empty() ? "GPU " : ", ") + std::to_string(gpu);
      Finding f = finding("dcgmi diag: " + t.name + " (" + t.category + ") " +
                          (fail ? "failed" : "warned") + (gpus.empty() ? "" : " on " + gpus));
      if (warn) f.severity = Severity::kWarning;
      f.node = n.label;
      f.evidence.push_back({"| " + t.name + " | " + t.result + " |", t.where});
      for (std::size_t i = 0; i < t.warnings.size() && i < 3; ++i)
        f.evidence.push_back({"Warning: " + t.warnings[i], t.where});
      if (!n.dcgm_diag->dcgm_version.empty())
        f.evidence.push_back(
            {"DCGM " + n.dcgm_diag->dcgm_version + ", driver " + n.dcgm_diag->driver_version,
             t.where});
      f.cause = cause_of(t);
      f.fix = fix_of(t);
      out.findings.push_back(std::move(f));
    }
    if (skipped > 0)
      out.notes.push_back(std::to_string(skipped) +
                          " DCGM test(s) were skipped: not run is not passed (a level above "
                          "the run's -r, a GPU the test does not support, or a test not "
                          "allowed for the SKU, NVIDIA/DCGM#55)");
    return out;
  }
};

}  // namespace

std::unique_ptr<Rule> make_dcgm_diag_failed() { return std::make_unique<DcgmDiagFailed>(); }

}  // namespace trainready
