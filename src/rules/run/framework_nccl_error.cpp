// framework-nccl-error: the training framework says a NCCL call failed, and no NCCL line in the
// log reads the failure (the other nccl-* rules read NCCL's own WARN and error lines).
#include "rules/rule_factories.h"
#include "rules/run/framework_evidence.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// What each ncclResult_t means: NCCL user guide, API "Types" (ncclResult_t) and
// "Troubleshooting > Errors" (docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/types.html),
// and the NCCL sites that return it, most common first.
std::string meaning(const std::string& result) {
  if (result == "ncclSystemError")
    return "a system call or external library failed inside NCCL (socket, shared memory, "
           "memory registration): a broken or unreachable network path, a small /dev/shm, a "
           "low RLIMIT_MEMLOCK";
  if (result == "ncclRemoteError")
    return "a peer process exited or the network between the ranks failed: the cause is on "
           "another rank or on the link, not on the one that reported it";
  // CUDACHECK / CUPFN (src/include/checks.h, cudawrap.cc) return it for any failed CUDA call:
  // cudaErrorInsufficientDriver ("CUDA driver version is insufficient for CUDA runtime
  // version") when NCCL or the framework was built for a newer CUDA than the driver, and
  // cudaErrorMemoryAllocation ("out of memory") for NCCL's buffers (NCCL_BUFFSIZE).
  if (result == "ncclUnhandledCudaError")
    return "a CUDA call inside NCCL failed: most often NCCL (or the framework's copy of it) was "
           "built for another CUDA version than the driver and runtime on the node (\"CUDA "
           "driver version is insufficient\"), or the GPU has no memory left for NCCL's buffers "
           "(NCCL_BUFFSIZE per channel and peer), or the GPU itself is in a bad state (an Xid "
           "fault, a peer access the platform forbids)";
  // ncclInternalError: "An internal check failed. This is due to either a bug in NCCL or a
  // memory corruption" (types.html); bootstrap.cc ("Bootstrap : no socket interface found"),
  // include/socket.h ("connecting to address with family %d is neither AF_INET ...") and
  // transport/net_socket.cc ("NET/Socket : no interface found") return it too (v2.8.4-1).
  if (result == "ncclInternalError")
    return "a check inside NCCL failed: a bug of that NCCL release (a newer NCCL release may "
           "fix it) or, on NCCL before 2.12, the bootstrap network: no usable interface, or "
           "NCCL_SOCKET_IFNAME naming an interface that is missing or differs between hosts";
  // init.cc "Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx" returns
  // ncclInvalidUsage (v2.4.2-1 .. v2.30.7-1), as do argcheck.cc's argument checks.
  if (result == "ncclInvalidUsage" || result == "ncclInvalidArgument")
    return "the program called NCCL wrongly: most often two ranks on the same GPU (more ranks "
           "per node than GPUs, or every rank on one hard-coded device), or counts, types or "
           "roots that differ between ranks, or a communicator used after abort";
  if (result == "ncclTimeout") return "a NCCL operation timed out";
  if (result.rfind("unsupported data type", 0) == 0)
    return "the framework's NCCL has no such data type: PyTorch maps bfloat16 to NCCL only when "
           "built with NCCL 2.10 or later (ncclBfloat16 first appears in NCCL 2.10's nccl.h), "
           "so an older NCCL in the build or the container rejects it";
  return "the framework aborted its NCCL communicator after a failure it detected";
}

// The issues the nccl-* rules only quote back (nccl-warnings): the framework's reading of the
// result is more than they say.
bool only_quoted_issues(const NcclRunFacts& f) {
  for (const auto& [problem, issue] : f.issues)
    if (problem != NcclProblem::kCudaError && problem != NcclProblem::kInternalError) return false;
  return true;
}

// A fatal signal whose backtrace runs through NCCL's code.
// `x` is the rule's finding, its message already set.
Finding crash_finding(Finding x, const FrameworkEvent& sig,
                      const std::vector<const FrameworkEvent*>& frames) {
  const bool bus = sig.detail == "SIGBUS";
  x.evidence.push_back(framework_evidence(sig));
  for (std::size_t i = 0; i < frames.size() && i < 3; ++i)
    x.evidence.push_back(framework_evidence(*frames[i]));
  if (bus) {
    // mmap(2): SIGBUS on access to a page of a mapping that the file cannot back. NCCL sizes its
    // /dev/shm segments with ftruncate and then writes them (src/misc/shmutils.cc
    // ncclShmSetup, ftruncate + memset, v2.12.7-1 .. v2.18.6-1; 2.19.1 uses fallocate and
    // reports "No space left on device" instead), so a full tmpfs kills the writer.
    x.cause =
        "NCCL touched a page of a shared-memory (/dev/shm) file that tmpfs could not back: "
        "/dev/shm is too small or full (a container's default 64 MB). NCCL 2.12 to 2.18 size "
        "their /dev/shm segments with ftruncate and then write them, so a full /dev/shm "
        "kills the process with SIGBUS instead of printing a WARN.";
    x.fix =
        "Give the container more shared memory (docker --shm-size=1g or --ipc=host; Kubernetes "
        "an emptyDir with medium: Memory at /dev/shm) and remove stale /dev/shm/nccl-* files; "
        "NCCL_SHM_DISABLE=1 only as a test. Confirm with df -h /dev/shm inside the container.";
  } else {
    x.cause = "A crash inside NCCL's code: the signal alone does not say which call failed.";
    x.fix =
        "Rerun with NCCL_DEBUG=INFO (NCCL_DEBUG_FILE=/path/nccl.%h.%p.log) and keep the full "
        "backtrace with symbols (gdb bt, or NCCL built with debug info), then run `trainready "
        "nccl` on those logs.";
  }
  x.rank = bus ? 60 : 30;
  return x;
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
    const FrameworkEvent* sig = f.framework.first(FrameworkEventKind::kFatalSignal);
    const auto frames = framework_events(f.framework, {FrameworkEventKind::kNcclFrame});
    if (sig && !frames.empty()) {
      // The most telling frame: a named NCCL function rather than the bare library.
      const FrameworkEvent* frame = frames.front();
      for (const FrameworkEvent* e : frames)
        if (frame->detail == "libnccl" && e->detail != "libnccl") frame = e;
      RuleOutcome o;
      o.findings.push_back(
          crash_finding(finding("The process died of " + sig->detail + " inside NCCL (" +
                                frame->detail + " in the backtrace)"),
                        *sig, frames));
      return o;
    }
    // NCCL's own lines (or the error text itself) already gave a reading: the nccl-* rules.
    if (!only_quoted_issues(f) || !f.timeouts.empty()) return {};
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
