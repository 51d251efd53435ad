// framework-nccl-error: the training framework says a NCCL call failed, and no NCCL line in the
// log reads the failure (the other nccl-* rules read NCCL's own WARN and error lines).
#include <algorithm>
#include <set>

#include "knowledge/nccl_code_areas.h"
#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_result_causes.h"
#include "rules/rule_factories.h"
#include "rules/run/framework_evidence.h"
#include "rules/run/nccl_result_reading.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// What each ncclResult_t means: NCCL user guide, API "Types" (ncclResult_t) and
// "Troubleshooting > Errors" (docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/types.html),
// and the NCCL sites that return it, most common first.
std::string meaning(const std::string& result) {
  // The results knowledge/nccl_result_causes.cpp ranks causes for: what the result says, the
  // causes follow (ranked_reading). NCCL user guide, API Types (ncclResult_t).
  if (result == "ncclSystemError")
    return "a system call or external library call failed inside NCCL (shared memory, sockets, "
           "memory registration)";
  if (result == "ncclRemoteError")
    return "a peer process exited or the network between the ranks failed: the cause is on "
           "another rank or on the link, not on the one that reported it";
  if (result == "ncclUnhandledCudaError") return "a CUDA call inside NCCL failed";
  if (result == "ncclInternalError")
    return "a check inside NCCL failed (before NCCL 2.24 also the bootstrap network's checks)";
  // init.cc "Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx" returns
  // ncclInvalidUsage (v2.4.2-1 .. v2.29.7-1), as do argcheck.cc's argument checks. From 2.30
  // several ranks may share a GPU only with NCCL_MULTI_RANK_GPU_ENABLE=1; by default
  // ncclCheckMultiRank still returns it ("Multiple ranks detected using the same GPU on this
  // node. Set NCCL_MULTI_RANK_GPU_ENABLE=1 ...", src/graph/topo.cc:1976-1980 @ v2.30.3-1;
  // "Multiple Ranks are using the same GPU/Partition", src/init.cc:1055-1058 @ v2.30.7-1).
  if (result == "ncclInvalidUsage" || result == "ncclInvalidArgument")
    return "the program called NCCL wrongly: most often two ranks on the same GPU (more ranks per "
           "node than GPUs, or every rank on one hard-coded device: NCCL refuses it, \"Duplicate "
           "GPU detected\" before 2.30 and from 2.30 unless NCCL_MULTI_RANK_GPU_ENABLE=1), or "
           "counts, types or roots that differ between ranks";
  if (result == "ncclTimeout") return "a NCCL operation timed out";
  if (result == "an unknown result code")
    return "the value the NCCL call returned is none of the ncclResult_t codes the loaded NCCL "
           "knows (ncclGetErrorString's default text)";
  if (result.rfind("unsupported data type", 0) == 0)
    return "the framework's NCCL has no such data type: PyTorch maps bfloat16 to NCCL only when "
           "built with NCCL 2.10 or later (ncclBfloat16 first appears in NCCL 2.10's nccl.h), "
           "so an older NCCL in the build or the container rejects it";
  return "the framework aborted its NCCL communicator after a failure it detected";
}

// NCCL's lines come from more than one process: the job has processes that share /dev/shm
// segments. A single process (nccl-tests -g 16, NVIDIA/nccl-tests#143) connects its GPUs by P2P
// within itself, so a SIGBUS without a backtrace says nothing of NCCL's segments there.
bool several_processes(const NcclRunFacts& f) {
  std::set<std::pair<std::string, long>> procs;
  for (const auto& [k, st] : f.streams) {
    procs.emplace(st.host_name, st.pid);
    if (procs.size() > 1) return true;
  }
  return false;
}

// Room for NCCL's /dev/shm segments: the fix of both SIGBUS readings below.
constexpr const char* kShmRoomFix =
    "Give the container more shared memory (docker --shm-size=1g or --ipc=host; Kubernetes an "
    "emptyDir with medium: Memory at /dev/shm) and remove stale /dev/shm/nccl-* files";

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
        std::string(kShmRoomFix) +
        "; NCCL_SHM_DISABLE=1 only as a test. Confirm with df -h /dev/shm inside the container.";
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

// SIGBUS with no backtrace through NCCL, in a log of NCCL's lines and no WARN: mmap(2) raises it
// on access to a page a mapped file cannot back, and the files such a job maps are on /dev/shm
// (NCCL's segments, the framework's shared-memory tensors). The process NCCL's lines name by its
// pid, when the crash handler printed one ("[host:pid:thread:tid] Caught signal 7", UCX).
Finding bus_error_finding(Finding x, const FrameworkEvent& sig, const NcclRunFacts& f) {
  x.evidence.push_back(framework_evidence(sig));
  for (const auto& [k, st] : f.streams) {
    const std::string pid = ":" + std::to_string(st.pid) + ":";
    if (st.pid > 0 && sig.text.find(pid) != std::string::npos &&
        sig.text.find(st.host_name) != std::string::npos) {
      x.evidence.push_back({"process " + std::to_string(st.pid) + " on " + st.host_name +
                                " printed NCCL's lines up to line " +
                                std::to_string(st.last_seen.line),
                            st.last_seen});
      break;
    }
  }
  x.cause =
      "SIGBUS is what a process gets when it touches a page of a mapped file the file system "
      "cannot back (mmap(2)); in a NCCL job the likeliest such files are on /dev/shm: NCCL's "
      "shared-memory "
      "segments (NCCL 2.12 to 2.18 size them with ftruncate and then write them, so a full "
      "/dev/shm kills the writer instead of printing a WARN; 2.19 allocates them with "
      "fallocate and reports 'No space left on device') and the framework's own "
      "shared-memory tensors (PyTorch DataLoader workers). The log shows no backtrace through "
      "NCCL's code, so which of them faulted is not told: both need room in /dev/shm, which a "
      "container gets 64 MB of by default. Less often: a file mapped elsewhere that shrank or "
      "whose file system failed (a checkpoint loaded with mmap, a memory-mapped dataset on a "
      "network file system), or a hardware memory error (the kernel log's 'Memory failure').";
  x.fix = std::string(kShmRoomFix) +
          ". Confirm with df -h /dev/shm inside the container while the job starts; "
          "NCCL_SHM_DISABLE=1 only as a test. If /dev/shm had room: dmesg for 'Memory failure' "
          "(hardware) and the files the job maps from other file systems.";
  x.rank = 45;
  return x;
}

// nccl-tests' CUDACHECK (src/common.h) wraps the harness's own CUDA calls: cudaMalloc of its
// send/receive buffers at the largest size it tests (-e), its streams and events (src/common.cu).
// The CUDA error is the harness's, not a call NCCL made. Meanings: CUDA runtime API,
// cudaError_t (docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html).
Finding nccl_tests_cuda_finding(Finding x, const FrameworkEvent& e) {
  x.evidence.push_back(framework_evidence(e));
  const std::string& err = e.detail;
  if (err == "out of memory") {
    x.cause =
        "nccl-tests could not allocate its own buffers: it allocates its send and receive "
        "buffers with cudaMalloc at the largest size it tests (-e, maxBytes) on each of its "
        "GPUs (-g per process) before it calls NCCL, and the GPU had not that much free memory.";
    x.fix =
        "Lower -e (max bytes) or -g (GPUs per process), or free the GPU: nvidia-smi shows "
        "another process holding its memory.";
  } else {
    std::string meaning;
    if (err == "invalid device ordinal")
      meaning =
          "the harness asked for a GPU that is not visible (-g, or -t times -g, larger "
          "than the GPUs CUDA_VISIBLE_DEVICES leaves to the process)";
    else if (err.rfind("CUDA driver version is insufficient", 0) == 0)
      meaning = "nccl-tests was built for a newer CUDA than the installed driver supports";
    else if (err == "system not yet initialized")
      // cudaErrorSystemNotReady (802): "verify ... all required driver daemons are actively
      // running"; on NVSwitch systems (HGX/DGX A100, H100) that daemon is nvidia-fabricmanager.
      meaning =
          "the GPU system is not ready for CUDA work: a required driver daemon is not "
          "running - on NVSwitch systems the fabric manager (systemctl status "
          "nvidia-fabricmanager)";
    else if (err == "no CUDA-capable device is detected")
      meaning =
          "the process sees no GPU (CUDA_VISIBLE_DEVICES, the container's GPU access, or "
          "the driver)";
    else
      meaning = "the CUDA runtime returned '" + err + "'";
    x.cause =
        "A CUDA call of nccl-tests itself failed (its CUDACHECK on its buffers, streams or "
        "events), not a call inside NCCL: " +
        meaning + ".";
    x.fix =
        "Check the GPUs the process sees (nvidia-smi, CUDA_VISIBLE_DEVICES) and the kernel log "
        "for Xid errors, and that nccl-tests was built for the node's CUDA and driver; then "
        "rerun.";
  }
  x.rank = 40;
  return x;
}

// The most telling frame of a crash inside NCCL: an internal function whose name tells NCCL's
// module (facts/nccl_code_area.h), then any named one, then the bare library. A stripped
// libnccl names its frames after the nearest exported API function (it exports only nccl.h's),
// so API names alone, on several frames or beside unnamed ones, do not say where it crashed.
Finding crash_in_nccl(Finding x, const FrameworkEvent& sig,
                      const std::vector<const FrameworkEvent*>& frames) {
  const FrameworkEvent* frame = frames.front();
  const NcclCodeAreaReading* area = nullptr;
  std::size_t api = 0, named = 0;
  bool repeated = false;  // one exported name at several addresses
  std::vector<std::string> api_names;
  for (const FrameworkEvent* e : frames) {
    if (e->detail == "libnccl") continue;
    ++named;
    const NcclCodeArea a = nccl_code_area(e->detail);
    if (a == NcclCodeArea::kApi) {
      ++api;
      repeated = repeated || e->count > 1;
      if (api_names.size() < 3 &&
          std::find(api_names.begin(), api_names.end(), e->detail) == api_names.end())
        api_names.push_back(e->detail);
    }
    if (!area && (area = nccl_code_area_reading(a))) frame = e;
    if (frame->detail == "libnccl") frame = e;
  }
  const bool stripped =
      !area && named > 0 && api == named && (named > 1 || repeated || frames.size() > named);
  if (sig.detail != "SIGBUS" && area) {
    x.message = "The process died of " + sig.detail + " inside " + std::string(area->name) + " (" +
                frame->detail + " in the backtrace)";
    x = crash_finding(std::move(x), sig, frames);
    x.cause = std::string(area->cause);
    x.fix = std::string(area->confirm);
    x.rank = 45;
    return x;
  }
  std::string where = frame->detail + " in the backtrace";
  if (stripped) {
    std::string names;
    for (const std::string& n : api_names) names += (names.empty() ? "" : ", ") + n;
    where = "libnccl without its symbol table: " + names +
            " name the nearest exported function before each address, which need not be the one "
            "that crashed";
  }
  x.message = "The process died of " + sig.detail + " inside NCCL (" + where + ")";
  return crash_finding(std::move(x), sig, frames);
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
      RuleOutcome o;
      o.findings.push_back(crash_in_nccl(finding(""), *sig, frames));
      return o;
    }
    if (sig && frames.empty() && sig->detail == "SIGBUS" && f.nccl_lines > 0 && f.issues.empty() &&
        f.warnings.empty() && f.timeouts.empty() && several_processes(f)) {
      RuleOutcome o;
      o.findings.push_back(bus_error_finding(
          finding("A process of this NCCL job died of SIGBUS (bus error): a page it had "
                  "mapped could not be backed, most often a shared-memory (/dev/shm) file"),
          *sig, f));
      return o;
    }
    if (const FrameworkEvent* c = f.framework.first(FrameworkEventKind::kCudaError)) {
      RuleOutcome o;
      o.findings.push_back(nccl_tests_cuda_finding(
          finding(c->detail == "out of memory"
                      ? "nccl-tests could not allocate its buffers on the GPU (CUDA 'out of "
                        "memory')"
                      : "A CUDA call of nccl-tests itself failed ('" + c->detail + "')"),
          *c));
      return o;
    }
    // NCCL's own lines (or the error text itself) already gave a reading: the nccl-* rules.
    const auto events = framework_result_events(f);
    if (events.empty()) return {};
    const FrameworkEvent* named = events.front();
    for (const FrameworkEvent* ev : events)
      if (named->detail.empty() && !ev->detail.empty()) named = ev;
    const FrameworkEvent& e = *named;
    const std::string result = e.kind == FrameworkEventKind::kNcclError ? e.detail : "";
    const bool type = result.rfind("unsupported data type", 0) == 0;
    // A bare result name (an issue title) has no framework to name.
    // PyTorch's watchdog thread rethrew what it caught, which ends the process
    // (nccl_framework.cpp).
    const bool watchdog = e.kind == FrameworkEventKind::kCommAborted && e.detail == "watchdog";
    const std::string who =
        watchdog ? "PyTorch's NCCL watchdog ended the process on a collective that failed "
                   "or timed out"
        : e.framework.empty() ? "NCCL failed"
                              : e.framework + " reports that NCCL failed";
    Finding x = finding(
        type ? e.framework + " cannot hand " + result.substr(22) +
                   " tensors to NCCL: the NCCL it uses is older than the release that added the "
                   "type (bfloat16: NCCL 2.10)"
             : who + (result.empty() ? std::string() : " with " + result) +
                   (nccl_result_text(result).empty()
                        ? std::string()
                        : " (\"" + std::string(nccl_result_text(result)) + "\")") +
                   ", and the log holds no NCCL line that says why");
    for (std::size_t i = 0; i < events.size() && i < 4; ++i)
      x.evidence.push_back(framework_evidence(*events[i]));
    x.cause = "This means " +
              (watchdog ? "the watchdog thread caught a collective's error or timeout and "
                          "rethrew it, which aborts the process (SIGABRT, exit code -6); the "
                          "message logged just before \"Exception raised from ncclCommWatchdog\" "
                          "says which"
                        : meaning(result)) +
              "." +
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
    if (!type) nccl_result_ranked_reading(x, f, result);
    RuleOutcome o;
    o.findings.push_back(std::move(x));
    return o;
  }
};

}  // namespace

std::unique_ptr<Rule> make_framework_nccl_error() { return std::make_unique<FrameworkNcclError>(); }

}  // namespace trainready
