// framework-nccl-error: the training framework says a NCCL call failed, and no NCCL line in the
// log reads the failure (the other nccl-* rules read NCCL's own WARN and error lines).
#include "rules/rule_factories.h"
#include "rules/run/framework_evidence.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// What each ncclResult_t means: NCCL user guide, API "Types" (ncclResult_t) and
// "Troubleshooting > Errors" (docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/types.html).
std::string meaning(const std::string& result) {
  if (result == "ncclSystemError")
    return "a system call or external library failed inside NCCL (socket, shared memory, "
           "memory registration): a broken or unreachable network path, a small /dev/shm, a "
           "low RLIMIT_MEMLOCK";
  if (result == "ncclRemoteError")
    return "a peer process exited or the network between the ranks failed: the cause is on "
           "another rank or on the link, not on the one that reported it";
  if (result == "ncclUnhandledCudaError")
    return "a CUDA call inside NCCL failed: a driver / CUDA mismatch, a GPU fault (Xid) or "
           "peer access that the platform forbids";
  if (result == "ncclInternalError")
    return "a check inside NCCL failed; on older NCCL this also covers network setup errors";
  if (result == "ncclInvalidUsage" || result == "ncclInvalidArgument")
    return "the program called NCCL wrongly (two ranks on one GPU, mismatched counts or "
           "types, a communicator used after abort)";
  if (result == "ncclTimeout") return "a NCCL operation timed out";
  if (result.rfind("unsupported data type", 0) == 0)
    return "the framework's NCCL has no such data type: PyTorch maps bfloat16 to NCCL only when "
           "built with NCCL 2.10 or later (ncclBfloat16 first appears in NCCL 2.10's nccl.h), "
           "so an older NCCL in the build or the container rejects it";
  return "the framework aborted its NCCL communicator after a failure it detected";
}

class FrameworkNcclError : public Rule {
 public:
  std::string_view id() const override { return "framework-nccl-error"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "The training framework reports a NCCL failure the log does not explain";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclRunFacts& f = *ctx.nccl_log;
    // NCCL's own lines (or the error text itself) already gave a reading: the nccl-* rules.
    if (!f.issues.empty() || !f.timeouts.empty()) return {};
    const auto events = framework_events(
        f.framework, {FrameworkEventKind::kNcclError, FrameworkEventKind::kCommAborted});
    if (events.empty()) return {};
    const FrameworkEvent* named = events.front();
    for (const FrameworkEvent* ev : events)
      if (named->detail.empty() && !ev->detail.empty()) named = ev;
    const FrameworkEvent& e = *named;
    const std::string result = e.kind == FrameworkEventKind::kNcclError ? e.detail : "";
    const bool type = result.rfind("unsupported data type", 0) == 0;
    Finding x = finding(
        type ? e.framework + " cannot hand " + result.substr(22) +
                   " tensors to NCCL: the NCCL it uses is older than the release that added the "
                   "type (bfloat16: NCCL 2.10)"
             : e.framework + " reports that NCCL failed" +
                   (result.empty() ? std::string() : " with " + result) +
                   ", and the log holds no NCCL line that says why");
    for (std::size_t i = 0; i < events.size() && i < 4; ++i)
      x.evidence.push_back(framework_evidence(*events[i]));
    x.cause = "This means " + meaning(result) + "." +
              (type                ? ""
               : f.nccl_lines == 0 ? " NCCL's own debug output is not in the log, so the failing "
                                     "call and the rank that failed first are not named."
                                   : " NCCL printed no WARN line about it.");
    if (type)
      x.fix =
          "Check the NCCL the framework loads (`python -c \"import torch; "
          "print(torch.cuda.nccl.version())\"`): upgrade to a PyTorch build or container with "
          "NCCL 2.10 or newer, or cast the tensors to a type that NCCL has before the "
          "collective.";
    else
      x.fix =
          "Rerun with NCCL_DEBUG=INFO (and NCCL_DEBUG_FILE=/path/nccl.%h.%p.log for a file per "
          "process), then run `trainready nccl` on those logs: NCCL's WARN line names the call "
          "and the peer. Read the earliest error across ranks first; the others follow from it.";
    x.rank = 30;
    RuleOutcome o;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_framework_nccl_error() { return std::make_unique<FrameworkNcclError>(); }

}  // namespace trainready
