// nccl-tests-wrong-results: nccl-tests found wrong values (#wrong > 0, out-of-bounds values).
#include "knowledge/nccl_kb.h"
#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

constexpr double kMaxErrorLimit = 1e-3;  // old "error" column: max relative error

// nccl-tests' own kernels fill the buffers and check the results (src/common.cu InitData,
// InitDataReduce, CheckDelta). Up to v2.14.1 their launch result was not checked: @ v2.13.8
// InitData calls ncclVerifiablePrepareInput(...) and drops the cudaError_t it returns, and before
// 2.13 the kernels were launched with <<<>>> and no cudaGetLastError. From v2.15.0 CUDACHECK
// wraps them ("Test CUDA failure common.cu:N 'no kernel image is available ...'"). So a build
// without the GPU's architecture reports wrong values instead of failing up to v2.14.1; its
// Makefile's default NVCC_GENCODE follows the CUDA version (src/common.mk: sm_60 and newer from
// CUDA 11, sm_75 and newer from CUDA 13; sm_35 / sm_50 only before CUDA 11).
constexpr const char* kTestsCheckLaunchFrom = "2.15.0";

class NcclTestsWrongResults : public Rule {
 public:
  std::string_view id() const override { return "nccl-tests-wrong-results"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override { return "nccl-tests found wrong results"; }
  RuleScope scope() const override { return RuleScope::kRunTests; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclTestsFacts& t = *ctx.nccl_tests;
    std::vector<const NcclTestsRow*> bad;
    bool checked = false;
    for (const auto& r : t.rows) {
      for (const auto& w : {r.oop_wrong, r.ip_wrong}) {
        if (!w) continue;
        checked = true;
        const double limit = r.error_is_max_error ? kMaxErrorLimit : 0.0;
        if (*w > limit) {
          bad.push_back(&r);
          break;
        }
      }
    }
    const bool oob = t.out_of_bounds && *t.out_of_bounds > 0;
    if (bad.empty() && !oob) {
      if (!checked && !t.out_of_bounds)
        return RuleOutcome::skip("the run did not check results (validation off: -c 0, N/A)");
      return {};
    }
    RuleOutcome o;
    Finding x = finding(bad.empty() ? "nccl-tests reported out-of-bounds values"
                                    : std::to_string(bad.size()) +
                                          " message size(s) produced wrong results");
    for (std::size_t i = 0; i < bad.size() && i < 5; ++i) {
      const NcclTestsRow& r = *bad[i];
      std::string w = r.oop_wrong ? std::to_string(*r.oop_wrong) : "N/A";
      std::string v = r.ip_wrong ? std::to_string(*r.ip_wrong) : "N/A";
      x.evidence.push_back({std::to_string(r.size_bytes) + " B: " +
                                (r.error_is_max_error ? "error " : "#wrong ") + w + " / " + v,
                            r.where});
    }
    if (oob)
      x.evidence.push_back(
          {"Out of bounds values : " + std::to_string(*t.out_of_bounds), t.out_of_bounds_where});
    // A version line of v2.15.0 or later rules the silent-launch cause out.
    const bool launch_checked =
        !t.tests_version.empty() &&
        nccl_version_in(t.tests_version, std::string(">=") + kTestsCheckLaunchFrom);
    x.cause =
        "Data arrived corrupted: a faulty GPU or NVLink (ECC / Xid errors), a bad HCA or "
        "cable, or mismatched NCCL builds between ranks.";
    if (!launch_checked)
      x.cause +=
          " Or nccl-tests' own kernels, which fill the buffers and check the results, never "
          "ran: a build of nccl-tests without this GPU's architecture (its Makefile's default "
          "NVCC_GENCODE follows the CUDA version: sm_60 and newer from CUDA 11, sm_75 and newer "
          "from CUDA 13) cannot launch them, and nccl-tests before v2.15.0 ignore that failed "
          "launch (src/common.cu), so the check reads wrong values instead of an error.";
    x.cause += " Bandwidth numbers from this run mean nothing.";
    x.fix =
        "Run `trainready doctor` on each node (GPU memory errors, link state); bisect the "
        "ranks (single node, then pairs) to find the node that corrupts data and drain it.";
    if (!launch_checked)
      x.fix +=
          " First rule out the build: nvidia-smi --query-gpu=compute_cap --format=csv gives the "
          "GPU's compute capability; rebuild nccl-tests with it in NVCC_GENCODE (make "
          "NVCC_GENCODE=\"-gencode=arch=compute_XY,code=sm_XY\") or use nccl-tests v2.15.0 or "
          "newer, which stop with 'no kernel image is available' when it is missing.";
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_tests_wrong_results() {
  return std::make_unique<NcclTestsWrongResults>();
}

}  // namespace trainready
