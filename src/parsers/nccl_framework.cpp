#include "parsers/nccl_framework.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "core/text.h"
#include "core/utf8.h"
#include "parsers/nccl_framework_bigrams.h"
#include "parsers/nccl_framework_crash.h"
#include "parsers/nccl_framework_cues.h"
#include "parsers/nccl_framework_launcher.h"
#include "parsers/nccl_framework_nhc.h"

namespace trainready {
namespace {

using K = FrameworkEventKind;
using framework_lines::Bigrams;
using framework_lines::find;
using framework_lines::has;

constexpr std::size_t kQuoteMax = 240;
constexpr std::size_t kEventCap = 64;

bool has(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

// The word after `key` (up to a blank, quote, comma or closing bracket), or "".
std::string_view word_after(std::string_view s, std::string_view key) {
  std::size_t p = s.find(key);
  if (p == std::string_view::npos) return {};
  p += key.size();
  std::size_t e = p;
  while (e < s.size() && e - p < 64 && std::strchr(" \t'\",)]};", s[e]) == nullptr) ++e;
  return s.substr(p, e - p);
}

std::string_view word_after(const Bigrams& bg, std::string_view t, std::string_view key) {
  return bg.maybe(key) ? word_after(t, key) : std::string_view();
}

void add(FrameworkFacts& out, K kind, std::string_view framework, std::string_view detail,
         std::string_view line, const std::string& source, std::uint64_t n) {
  ++out.lines;
  if (!framework.empty()) out.frameworks.emplace(framework);
  for (auto& e : out.events) {
    if (e.kind == kind && e.framework == framework && e.detail == detail) {
      ++e.count;
      return;
    }
  }
  if (out.events.size() >= kEventCap) return;
  FrameworkEvent e;
  e.kind = kind;
  e.framework = std::string(framework);
  e.detail = clip_text(detail, 64);
  e.text = clip_text(trim(line), kQuoteMax);
  e.where = {source, static_cast<int>(n > 2147483647u ? 2147483647u : n)};
  out.events.push_back(std::move(e));
}

// ncclGetErrorString() texts, NCCL src/init.cc (the same first words from v2.4.2-1 to
// v2.30.7-1; ncclRemoteError since 2.12, ncclInProgress since 2.14, ncclTimeout since 2.29).
struct ResultText {
  std::string_view text;
  std::string_view name;
};
constexpr ResultText kResults[] = {
    {"unhandled cuda error", "ncclUnhandledCudaError"},
    {"unhandled system error", "ncclSystemError"},
    {"internal error", "ncclInternalError"},
    {"invalid argument", "ncclInvalidArgument"},
    {"invalid usage", "ncclInvalidUsage"},
    {"remote process exited or there was a network error", "ncclRemoteError"},
    {"NCCL operation in progress", "ncclInProgress"},
    {"timeout", "ncclTimeout"},
    // ncclGetErrorString's default case: a value that is none of the library's ncclResult_t
    // codes (the same text v2.4.2-1 .. v2.30.7-1).
    {"unknown result code", "an unknown result code"},
};

// The ncclResult_t names PyTorch's getNcclErrorDetailStr() starts its detail line with
// (torch/csrc/distributed/c10d/NCCLUtils.cpp, v2.0.0 .. v2.9.0): "ncclSystemError: System call
// (e.g. socket, malloc) or external library call failed or device error."
constexpr std::string_view kResultNames[] = {
    "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError", "ncclInvalidArgument",
    "ncclInvalidUsage",       "ncclRemoteError", "ncclInProgress",
};

// Whether `reason` is one of ncclGetErrorString's texts as a whole: it ends there, or goes on
// as NCCL's longer texts and the programs that quote them do (" (run with NCCL_DEBUG=INFO for
// details)", " - please report ...", ", NCCL version", ". Last NCCL warning", "'").
bool whole_reason(std::string_view reason) {
  for (const ResultText& r : kResults) {
    if (reason.substr(0, r.text.size()) != r.text) continue;
    const std::string_view rest = reason.substr(r.text.size());
    return rest.empty() || rest[0] == '.' || rest[0] == ',' || rest[0] == ';' || rest[0] == '\'' ||
           rest[0] == '"' || rest.substr(0, 2) == " (" || rest.substr(0, 3) == " - " ||
           trim(rest).empty();
  }
  return false;
}

bool nccl_error(std::string_view t, const Bigrams& bg, const std::string& src, std::uint64_t n,
                FrameworkFacts& out) {
  // PyTorch C10D_NCCL_CHECK (torch/csrc/distributed/c10d/NCCLUtils.hpp, v1.5.0 .. v2.9.0):
  //   "NCCL error in: " __FILE__ ":" __LINE__ ", " ncclGetErrorWithVersion(result) ...
  //   ncclGetErrorWithVersion = ncclGetErrorString(error) + ", NCCL version " + version
  if (std::size_t p = find(bg, t, "NCCL error in: "); p != std::string_view::npos) {
    std::string_view rest = t.substr(p + 15);
    const std::size_t comma = rest.find(", ");
    const std::string_view reason = comma == std::string_view::npos ? "" : rest.substr(comma + 2);
    add(out, K::kNcclError, "PyTorch", nccl_result_from_reason(reason), t, src, n);
    return true;
  }
  // Two programs print "NCCL error: " and a reason:
  // - vLLM pynccl_wrapper.py NCCLLibrary.NCCL_CHECK (v0.4.1 .. v0.11.0; SGLang copies it):
  //     raise RuntimeError(f"NCCL error: {error_str}")
  // - PyTorch ProcessGroupNCCL::checkForNCCLErrorsInternal (v1.6 .. v2.9), which the watchdog
  //   rethrows ("NCCL watchdog thread terminated with exception: NCCL error: ..."):
  //     "NCCL error: " + ncclGetErrorWithVersion(ncclAsyncErr)  (", NCCL version X.Y.Z" after)
  // Neither tells a line of its own from another program's: a line with neither mark names no
  // framework (nvidia/nccl#1726's "ncclCommInitRank failed with error: NCCL error: ...").
  // (The raise line itself is quoted in the traceback above: only a known reason counts.)
  if (std::size_t p = find(bg, t, "NCCL error: "); p != std::string_view::npos) {
    const std::string_view reason = t.substr(p + 12);
    const std::string_view result = nccl_result_from_reason(reason);
    if (result.empty()) return false;
    const std::string_view who =
        has(reason, ", NCCL version ") || has(t.substr(0, p), "ProcessGroupNCCL") ? "PyTorch"
        : t.substr(0, p).ends_with("RuntimeError: ")                              ? "vLLM"
                                                                                  : "";
    add(out, K::kNcclError, who, result, t, src, n);
    return true;
  }
  // PyTorch torch/csrc/cuda/nccl.cpp NCCL_CHECK (v1.0 .. v2.9.0):
  //   "NCCL Error " + std::to_string(result) + ": " + ncclGetErrorString(result)
  if (std::size_t p = find(bg, t, "NCCL Error "); p != std::string_view::npos) {
    const std::size_t colon = find(bg, t, ": ", p);
    if (colon != std::string_view::npos && colon < p + 16) {
      add(out, K::kNcclError, "PyTorch", nccl_result_from_reason(t.substr(colon + 2)), t, src, n);
      return true;
    }
  }
  // The NCCLCHECK of the NCCL user guide's examples (Examples > "Example 1: Single Process,
  // Single Thread, Multiple Devices" and the others), copied by programs that call NCCL
  // themselves (TensorRT-LLM's plugins among them: "Failed, NCCL error .../tensorrt_llm/plugins/
  // ncclPlugin/allreducePlugin.cpp:183 'unknown result code'", NVIDIA/TensorRT-LLM#1131):
  //   printf("Failed, NCCL error %s:%d '%s'\n", __FILE__, __LINE__, ncclGetErrorString(r));
  if (std::size_t p = find(bg, t, "Failed, NCCL error "); p != std::string_view::npos) {
    const std::string_view rest = t.substr(p + 19);
    const std::size_t quote = rest.find(" '");
    if (quote != std::string_view::npos && quote < 512) {
      const std::string_view result = nccl_result_from_reason(rest.substr(quote + 2));
      if (!result.empty()) {
        const std::string_view file = rest.substr(0, quote);
        add(out, K::kNcclError, has(file, "tensorrt_llm") ? "TensorRT-LLM" : "", result, t, src, n);
        return true;
      }
    }
  }
  // XLA (JAX, TensorFlow) XLA_NCCL_STATUS / ToStatus (xla/service/gpu/nccl_utils.cc, later
  // nccl_api.cc): "%s:%d: NCCL operation %s failed: %s" (file, line, the call's expression,
  // ncclGetErrorString), since 2023 followed by ". Last NCCL warning(error) log entry (may be
  // unrelated) '%s'." (ncclGetLastError), which the knowledge base reads as NCCL's WARN text.
  if (std::size_t p = find(bg, t, "NCCL operation nccl"); p != std::string_view::npos) {
    const std::size_t f = find(bg, t, " failed: ", p + 15);
    if (f != std::string_view::npos && f - p < 512) {
      const std::string_view result = nccl_result_from_reason(t.substr(f + 9));
      if (!result.empty()) {
        add(out, K::kNcclError, "XLA", result, t, src, n);
        return true;
      }
    }
  }
  // COSMA (the distributed matrix multiply CP2K calls) gpu::check_nccl_status (eth-cscs/COSMA
  // src/cosma/gpu/nccl_utils.cpp and utils.cpp, 2020 on): std::cerr << "[NCCL ERROR]: " <<
  // ncclGetErrorString(result), then throw std::runtime_error("NCCL ERROR").
  if (std::size_t p = find(bg, t, "[NCCL ERROR]: "); p != std::string_view::npos) {
    const std::string_view reason = t.substr(p + 14);
    const std::string_view result = nccl_result_from_reason(reason);
    if (!result.empty() && whole_reason(reason)) {
      add(out, K::kNcclError, "COSMA", result, t, src, n);
      return true;
    }
  }
  // "<NCCL call> failed: " + ncclGetErrorString(result): Horovod's NCCLContext::ErrorCheck
  // (horovod/common/ops/nccl_operations.cc, v0.16 .. v0.28: "ncclCommInitRank failed: unhandled
  // cuda error"), and the same words in other programs' checks. Only an NCCL API name before
  // " failed: " and a known reason after it count.
  for (std::size_t p = find(bg, t, " failed: "); p != std::string_view::npos;
       p = find(bg, t, " failed: ", p + 9)) {
    std::size_t b = p;
    while (b > 0 && (std::isalnum(static_cast<unsigned char>(t[b - 1])) != 0)) --b;
    const std::string_view call = t.substr(b, p - b);
    if (call.size() < 6 || call.compare(0, 4, "nccl") != 0 ||
        std::isupper(static_cast<unsigned char>(call[4])) == 0)
      continue;
    // The whole reason, not a word that starts another text ("timeout on attempt 1, retrying").
    const std::string_view reason = t.substr(p + 9);
    const std::string_view result = nccl_result_from_reason(reason);
    if (result.empty() || !whole_reason(reason)) continue;
    add(out, K::kNcclError, "", result, t, src, n);
    return true;
  }
  // nccl-tests src/common.h NCCLCHECK: "%s: Test NCCL failure %s:%d '%s'" (hostname, file, line,
  // ncclGetErrorString) since cbe7f65 (2019-03), "'%s / %s'" with ncclGetLastError since 51af557
  // (2022-08, v2.13 resync); "NCCL failure %s:%d '%s'" before 2019-03. The file is a .cu/.h.
  if (std::size_t p = find(bg, t, "NCCL failure "); p != std::string_view::npos) {
    const std::string_view rest = t.substr(p + 13);
    const std::size_t quote = rest.find(" '");
    const std::size_t colon = rest.find(':');
    if (quote != std::string_view::npos && colon != std::string_view::npos && colon < quote &&
        quote < 128 && colon + 1 < rest.size() && rest[colon + 1] >= '0' &&
        rest[colon + 1] <= '9') {
      add(out, K::kNcclError, "nccl-tests", nccl_result_from_reason(rest.substr(quote + 2)), t, src,
          n);
      return true;
    }
  }
  // nccl-tests src/common.h CUDACHECK: "%s: Test CUDA failure %s:%d '%s'" (hostname, file, line,
  // cudaGetErrorString) since cbe7f65 (2019-03), "Cuda failure %s:%d '%s'" before. It wraps the
  // harness's own CUDA calls (cudaMalloc of its send/recv buffers, streams, events in
  // src/common.cu), not NCCL's: NCCL's own "Cuda failure 'x'" has no file:line.
  for (std::string_view head :
       {std::string_view("Test CUDA failure "), std::string_view("Cuda failure ")}) {
    const std::size_t p = find(bg, t, head);
    if (p == std::string_view::npos) continue;
    const std::string_view rest = t.substr(p + head.size());
    const std::size_t quote = rest.find(" '");
    const std::size_t colon = rest.find(':');
    if (quote == std::string_view::npos || colon == std::string_view::npos || colon > quote ||
        quote > 128 || colon + 1 >= rest.size() || rest[colon + 1] < '0' || rest[colon + 1] > '9')
      continue;
    std::string_view err = rest.substr(quote + 2);
    if (!err.empty() && err.back() == '\'') err.remove_suffix(1);
    add(out, K::kCudaError, "nccl-tests", err.substr(0, 96), t, src, n);
    return true;
  }
  // PyTorch ProcessGroupNCCL.cpp getNcclDataType (v1.8.0 .. v2.9.0):
  //   "Input tensor data type is not supported for NCCL process group: " type
  // The type map has kBFloat16 only when HAS_NCCL_BF16_DATATYPE (NCCL 2.10+, where nccl.h
  // first defines ncclBfloat16).
  if (std::size_t p = find(bg, t, "data type is not supported for NCCL process group: ");
      p != std::string_view::npos) {
    add(out, K::kNcclError, "PyTorch", "unsupported data type " + std::string(t.substr(p + 51)), t,
        src, n);
    return true;
  }
  // The detail line under the error (see kResultNames), at the start of a line.
  if (t.size() > 12 && t[0] == 'n' && t.compare(0, 4, "nccl") == 0) {
    for (std::string_view name : kResultNames) {
      if (t.size() > name.size() && t.compare(0, name.size(), name) == 0 && t[name.size()] == ':') {
        add(out, K::kNcclError, "PyTorch", name, t, src, n);
        return true;
      }
    }
  }
  // A bare ncclResult_t name (nccl.h) as a word anywhere else: an issue title or a summary
  // ("multi-node fine-tuning fails with ncclInternalError"). No framework signs it.
  for (std::size_t p = find(bg, t, "nccl"); p != std::string_view::npos;
       p = find(bg, t, "nccl", p + 4)) {
    if (p > 0 && (std::isalnum(static_cast<unsigned char>(t[p - 1])) || t[p - 1] == '_')) continue;
    for (std::string_view name : kResultNames) {
      const std::size_t e = p + name.size();
      if (t.compare(p, name.size(), name) != 0) continue;
      if (e < t.size() && (std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '_')) continue;
      add(out, K::kNcclError, "", name, t, src, n);
      return true;
    }
  }
  return false;
}

// vLLM csrc/custom_all_reduce.cuh CUDACHECK (v0.3.3 .. v0.11.0; SGLang's sgl-kernel copies it
// into its own custom_all_reduce.cuh):
//   printf("Failed: Cuda error %s:%d '%s'\n", __FILE__, __LINE__, cudaGetErrorString(e));
//   exit(EXIT_FAILURE);
// Its own all-reduce kernel for one node's GPUs, which maps the peers' buffers with
// cudaIpcOpenMemHandle(..., cudaIpcMemLazyEnablePeerAccess): NCCL is not in the call.
bool custom_all_reduce(std::string_view t, const Bigrams& bg, const std::string& src,
                       std::uint64_t n, FrameworkFacts& out) {
  if (!bg.maybe("Failed: Cuda error ")) return false;
  const std::size_t p = find(bg, t, "Failed: Cuda error ");
  if (p == std::string_view::npos) return false;
  const std::string_view rest = t.substr(p + 19);
  const std::size_t quote = rest.find(" '");
  if (quote == std::string_view::npos || !has(rest.substr(0, quote), "custom_all_reduce"))
    return false;
  std::string_view err = rest.substr(quote + 2);
  if (!err.empty() && err.back() == '\'') err.remove_suffix(1);
  const std::string_view file = rest.substr(0, quote);
  const std::string_view who = has(file, "sgl") ? "SGLang" : "vLLM";
  add(out, K::kCustomAllReduce, who, err.substr(0, 96), t, src, n);
  return true;
}

bool word_at(std::string_view s, std::size_t p, std::size_t len) {
  const auto alpha = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
  return (p == 0 || !alpha(s[p - 1])) && (p + len >= s.size() || !alpha(s[p + len]));
}

// The first of `words` in `s` that starts a word (prefix: "hang" also reads "hangs"), or "".
std::string_view first_word(std::string_view s, std::initializer_list<std::string_view> words,
                            bool whole) {
  for (std::string_view w : words) {
    for (std::size_t p = s.find(w); p != std::string_view::npos; p = s.find(w, p + 1)) {
      const bool start = p == 0 || !std::isalpha(static_cast<unsigned char>(s[p - 1]));
      if (start && (!whole || word_at(s, p, w.size()))) return w;
    }
  }
  return {};
}

// NCCL user guide, Troubleshooting > GPU Direct > PCI Access Control Services (ACS): "IO
// virtualization (also known as, VT-d or IOMMU) can interfere with GPU Direct by redirecting all
// PCI point-to-point traffic to the CPU root complex, causing a significant performance
// reduction or even a hang." Read only from a person's explicit words on one line: a hang word,
// a collective (or NCCL as what hangs), and GPUs on PCIe without NVLink (nvidia-smi topo -m's
// PIX / PXB / PHB).
bool pcie_hang(std::string_view t, const Bigrams& bg, const std::string& src, std::uint64_t n,
               FrameworkFacts& out) {
  // A byte-pair gate for the words below in any case: "Hang" holds no "ha", so it is its own.
  static constexpr std::string_view kHang[] = {"hang", "hung", "Hang", "Hung",    "eadlock",
                                               "tuck", "HANG", "HUNG", "EADLOCK", "TUCK"};
  bool maybe = false;
  for (std::string_view h : kHang) maybe = maybe || bg.maybe(h);
  if (!maybe) return false;
  const std::string l = to_lower(t.substr(0, 512));
  if (first_word(l, {"hang", "hung", "deadlock", "stuck"}, false).empty()) return false;
  // A collective, or NCCL itself the subject of the hang ("NCCL hangs", "nccl is stuck"): NCCL
  // alone elsewhere on the line ("NCCL_P2P_LEVEL=PHB ... got stuck") is not.
  if (first_word(l, {"allreduce",       "all_reduce",    "all-reduce",    "all reduce",
                     "collective",      "ncclallreduce", "ncclallgather", "ncclreducescatter",
                     "ncclbroadcast",   "ncclreduce",    "allgather",     "all_gather",
                     "reduce_scatter",  "reducescatter", "broadcast",     "nccl hang",
                     "nccl is hang",    "nccl is stuck", "nccl stuck",    "nccl deadlock",
                     "nccl gets stuck", "nccl got stuck"},
                 false)
          .empty())
    return false;
  std::string_view link = first_word(l, {"no nvlink", "without nvlink", "pcie", "pci-e"}, false);
  if (link.empty()) {
    // nvidia-smi topo -m's words, not a setting's value (NCCL_P2P_LEVEL=PHB).
    for (std::string_view w : {"phb", "pxb", "pix"})
      for (std::size_t p = l.find(w); p != std::string::npos && link.empty(); p = l.find(w, p + 1))
        if ((p == 0 || (l[p - 1] != '=' && !std::isalnum(static_cast<unsigned char>(l[p - 1])))) &&
            word_at(l, p, w.size()))
          link = w;
  }
  if (link.empty() || has(l, "with nvlink") || has(l, "over nvlink")) return false;
  add(out, K::kPcieHang, "", link, t, src, n);
  return true;
}

bool aborted_or_hung(std::string_view t, const Bigrams& bg, const std::string& src, std::uint64_t n,
                     FrameworkFacts& out) {
  // PyTorch ProcessGroupNCCL.cpp heartbeatMonitor (v2.2.0 .. v2.9.0):
  //   "Heartbeat monitor timed out! Process will be terminated after dumping debug info."
  //   "ProcessGroupNCCL's watchdog got stuck for " heartbeatTimeoutInSec_ " seconds without
  //    making progress in monitoring enqueued collectives. This typically indicates a NCCL/CUDA
  //    API (e.g., CudaEvent.query/synchronize) hang blocking the watchdog, ..."
  if (has(bg, t, "watchdog got stuck for ")) {
    add(out, K::kWatchdogHang, "PyTorch", word_after(bg, t, "watchdog got stuck for "), t, src, n);
    return true;
  }
  if (has(bg, t, "Heartbeat monitor timed out")) {
    add(out, K::kWatchdogHang, "PyTorch", "", t, src, n);
    return true;
  }
  // ProcessGroupNCCL.cpp (v1.8.0 .. v2.9.0): WorkNCCL::checkAndSetException / abort:
  //   "NCCL communicator was aborted on rank " rank_ "."
  //   "Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA
  //    kernels, subsequent GPU operations might run on corrupted/incomplete data."
  // ProcessGroupNCCL's watchdog on a collective that failed or timed out (work.exception()),
  // before it aborts the communicators: "<prefix> failure detected by watchdog at work sequence
  // id: N PG status: last enqueued work: M, last completed work: K" (later releases), "Exception
  // (either an error or timeout) detected by watchdog at work: N, last enqueued NCCL work: M, last
  // completed NCCL work: K" and "NCCL error is detected by watchdog at work: N" (earlier ones;
  // torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp).
  if (has(bg, t, "NCCL communicator was aborted") ||
      has(bg, t, "Some NCCL operations have failed or timed out") ||
      has(bg, t, "failure detected by watchdog at work sequence id: ") ||
      has(bg, t, "(either an error or timeout) detected by watchdog at work: ") ||
      has(bg, t, "NCCL error is detected by watchdog at work: ")) {
    add(out, K::kCommAborted, "PyTorch", "", t, src, n);
    return true;
  }
  // A c10::Error keeps the place it was built: "Exception raised from <function> at <file>:<line>
  // (most recent call first):", then its frames (c10/util/Exception.cpp). ProcessGroupNCCL.cpp
  // builds one in WorkNCCL::checkTimeout only when a collective ran past its timeout, after
  // logging "Watchdog caught collective operation timeout: WorkNCCL(...)"; and one in
  // ncclCommWatchdog when the watchdog thread ends on an exception it caught ("... watchdog thread
  // terminated with exception: <what>"), which it rethrows: std::terminate, SIGABRT
  // (pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp at 0007e752,
  // WorkNCCL::checkTimeout and ProcessGroupNCCL::ncclCommWatchdog; public logs show the same two
  // lines at ProcessGroupNCCL.cpp:525 .. :760, i.e. across many releases). An excerpt of the
  // frames alone still says which.
  if (has(bg, t, "Exception raised from checkTimeout at ") ||
      has(bg, t, "ProcessGroupNCCL::WorkNCCL::checkTimeout(")) {
    add(out, K::kWatchdogTimeout, "PyTorch", "", t, src, n);
    return true;
  }
  if (has(bg, t, "Exception raised from ncclCommWatchdog at ") ||
      has(bg, t, "watchdog thread terminated with exception")) {
    add(out, K::kCommAborted, "PyTorch", "watchdog", t, src, n);
    return true;
  }
  return false;
}

bool rendezvous(std::string_view t, const Bigrams& bg, const std::string& src, std::uint64_t n,
                FrameworkFacts& out) {
  // torch/distributed/distributed_c10d.py _store_based_barrier (v1.9.0 .. v2.0.1):
  //   "Timed out initializing process group in store based barrier on rank: {rank}, for key:
  //    {store_key} (world_size={world_size}, worker_count={worker_count}, timeout={timeout})"
  // ("Waiting in store based barrier ..." lines before it are progress, not failure.)
  if (has(bg, t, "Timed out initializing process group in store based barrier")) {
    std::string d;
    if (std::string_view w = word_after(bg, t, "worker_count="); !w.empty())
      d = std::string(w) + "/" + std::string(word_after(bg, t, "world_size=")) + " joined";
    add(out, K::kRendezvousTimeout, "PyTorch", d, t, src, n);
    return true;
  }
  // torch/csrc/distributed/c10d/TCPStore.cpp waitForWorkers (v2.0.0 .. v2.9.0):
  //   "Timed out after " timeout " seconds waiting for clients. " joined "/" n " clients joined."
  if (std::size_t p = find(bg, t, "seconds waiting for clients. "); p != std::string_view::npos) {
    std::string_view joined = word_after(t.substr(p), "clients. ");
    add(out, K::kRendezvousTimeout, "PyTorch",
        joined.empty() ? std::string() : std::string(joined) + " joined", t, src, n);
    return true;
  }
  // TCPStore.cpp / TCPStoreLibUvBackend.cpp doWait (v2.0.0 .. v2.9.0):
  //   "wait timeout after " timeout "ms, keys: " keys   (the keys a rank never published)
  if (has(bg, t, "wait timeout after ") && has(bg, t, "keys:")) {
    add(out, K::kRendezvousTimeout, "PyTorch", "", t, src, n);
    return true;
  }
  // torch/distributed/elastic/rendezvous/api.py: class RendezvousTimeoutError(RendezvousError)
  if (has(bg, t, "RendezvousTimeoutError")) {
    add(out, K::kRendezvousTimeout, "PyTorch", "", t, src, n);
    return true;
  }
  // torch/csrc/distributed/c10d/socket.cpp (v2.0.0 .. v2.9.0):
  //   "The client socket has timed out after {} while trying to connect to ({}, {})."
  //   "The client socket has failed to connect to any network address of ({}, {})."
  //   "The server socket has failed to listen on any local network address. ..."
  //   "The server socket has failed to bind to {} (errno: {} - {})."
  static constexpr ResultText kSocket[] = {
      {"The client socket has timed out", "client connect timed out"},
      {"The client socket has failed to connect", "client connect failed"},
      {"The server socket has failed to listen", "server listen failed"},
      {"The server socket has failed to bind", "server bind failed"},
  };
  for (const ResultText& m : kSocket) {
    if (has(bg, t, m.text)) {
      add(out, K::kStoreUnreachable, "PyTorch", m.name, t, src, n);
      return true;
    }
  }
  // torch/csrc/distributed/c10d/ProcessGroupGloo.cpp createDefaultDevice (v1.8 .. v2.9): the
  // host's name resolves to no usable local address, so Gloo binds loopback:
  //   "Unable to resolve hostname to a (local) address. Using the loopback address as fallback.
  //    Manually set the network interface to bind to with GLOO_SOCKET_IFNAME."
  // and its full mesh of the group's ranks then fails ("Gloo connectFullMesh failed with ...").
  if (has(bg, t, "Using the loopback address as fallback")) {
    add(out, K::kStoreUnreachable, "PyTorch", "gloo on loopback", t, src, n);
    return true;
  }
  if (has(bg, t, "Gloo connectFullMesh failed")) {
    add(out, K::kStoreUnreachable, "PyTorch", "gloo connect failed", t, src, n);
    return true;
  }
  return false;
}

bool backend(std::string_view t, const Bigrams& bg, const std::string& src, std::uint64_t n,
             FrameworkFacts& out) {
  // torch/distributed/distributed_c10d.py (v1.0.0 .. v2.9.0), is_nccl_available() false:
  //   raise RuntimeError("Distributed package doesn't have NCCL " "built in")
  // (two literals in the source since 1.x, which a traceback quotes as the raising line).
  if (has(bg, t, "doesn't have NCCL built in") || has(bg, t, "doesn't have NCCL \" \"built in")) {
    add(out, K::kNcclUnavailable, "PyTorch", "", t, src, n);
    return true;
  }
  // XLA (JAX, TensorFlow) calls NCCL through a stub that loads libnccl at run time
  // (openxla/xla xla/tsl/cuda/nccl_stub.cc): when the library cannot be loaded every NCCL call
  // returns ncclSystemError and ncclGetErrorString returns this text, which XLA quotes
  // ("NCCL operation ncclGetUniqueId(&id) failed: Unable to load NCCL library. ...").
  if (has(bg, t, "Unable to load NCCL library. Multi-GPU collectives will not work")) {
    add(out, K::kNcclUnavailable, "XLA", "not loadable", t, src, n);
    return true;
  }
  // DeepSpeed deepspeed/comm/torch.py TorchBackend.init_process_group (v0.8.0 .. v0.17):
  //   logger.info(f"Initializing TorchBackend in DeepSpeed with backend {backend}")
  if (std::string_view b = word_after(bg, t, "in DeepSpeed with backend "); !b.empty()) {
    add(out, K::kBackend, "DeepSpeed", b, t, src, n);
    return true;
  }
  // Accelerate accelerate/state.py PartialState.__repr__ (v0.12 .. v1.10):
  //   f"Distributed environment: {self.distributed_type}{('  Backend: ' + self.backend) ...}"
  if (std::size_t p = find(bg, t, "Distributed environment: "); p != std::string_view::npos) {
    const std::string_view rest = t.substr(p);
    if (std::string_view b = word_after(rest, "Backend: "); !b.empty())
      add(out, K::kBackend, "Accelerate", b, t, src, n);
    if (has(rest, "MULTI_GPU")) add(out, K::kGpuInUse, "Accelerate", "", t, src, n);
    return true;
  }
  // Lightning lightning/fabric/utilities/distributed.py _init_dist_connection (v1.6 .. v2.5):
  //   rank_zero_info(f"{'-' * 100}\ndistributed_backend={torch_distributed_backend}\n...")
  if (std::string_view b = word_after(bg, t, "distributed_backend="); !b.empty()) {
    add(out, K::kBackend, "Lightning", b, t, src, n);
    return true;
  }
  // Megatron-LM megatron/training/arguments.py print_args (core_r0.5.0 .. core_r0.14.0):
  //   '  {} {} {}'.format(arg, '.' * (48 - len(arg)), getattr(args, arg))
  if (std::size_t p = find(bg, t, "distributed_backend ."); p != std::string_view::npos) {
    std::size_t e = p + 20;
    while (e < t.size() && (t[e] == '.' || t[e] == ' ')) ++e;
    std::size_t w = e;
    while (w < t.size() && w - e < 32 && t[w] != ' ' && t[w] != '\t') ++w;
    const std::string_view b = t.substr(e, w - e);
    if (!b.empty()) add(out, K::kBackend, "Megatron-LM", b, t, src, n);
    return !b.empty();
  }
  // The call itself, quoted in a traceback: dist.init_process_group(backend="gloo", ...)
  if (std::size_t p = find(bg, t, "init_process_group("); p != std::string_view::npos) {
    std::string_view rest = t.substr(p);
    for (std::string_view key : {"backend=\"", "backend='"}) {
      if (std::string_view b = word_after(rest, key); !b.empty()) {
        add(out, K::kBackend, "PyTorch", b, t, src, n);
        return true;
      }
    }
  }
  // Lightning lightning/pytorch/trainer/setup.py _log_device_info:
  //   f"GPU available: {gpu_available}{gpu_type}, used: {num_gpus > 0}"
  if (has(bg, t, "GPU available: True") && has(bg, t, "used: True")) {
    add(out, K::kGpuInUse, "Lightning", "", t, src, n);
    return true;
  }
  // DeepSpeed deepspeed/accelerator/real_accelerator.py get_accelerator():
  //   f"Setting ds_accelerator to {ds_accelerator._name} ({accel_logger_msg})"
  if (has(bg, t, "Setting ds_accelerator to cuda")) {
    add(out, K::kGpuInUse, "DeepSpeed", "", t, src, n);
    return true;
  }
  return false;
}

// A fatal signal as a crash handler or debugger prints it, and the backtrace frames in NCCL's
// code under it (nccl_framework_crash.h): each line is one event; the rule reads them together.
bool crash(std::string_view t, const Bigrams& bg, const std::string& src, std::uint64_t n,
           FrameworkFacts& out) {
  const auto c = framework_lines::crash_line(t, bg);
  if (!c) return false;
  add(out, c->signal ? K::kFatalSignal : K::kNcclFrame, c->handler, c->detail, t, src, n);
  return true;
}

}  // namespace

std::string_view nccl_result_from_reason(std::string_view reason) {
  reason = trim(reason);
  for (const ResultText& r : kResults)
    if (reason.size() >= r.text.size() && reason.compare(0, r.text.size(), r.text) == 0)
      return r.name;
  return {};
}

// NCCL's RAS client (src/ras/client_support.cc, v2.24.3-1 .. v2.30.7-1) starts its text report
// with "NCCL version %s compiled with CUDA %d.%d" and prints the communicator table header
// "Group     Comms     Nodes     Ranks ..." (a pasted excerpt may start there).
// Its JSON report (`ncclras -f json`, 2.28.7+: jsonWriteHeader) opens with "{" and then
// "  \"nccl_version\": \"2.28.7\"," on the next line (or on the same line, when minified).
bool ras_start(std::string_view t, const std::string& source, std::uint64_t n,
               FrameworkFacts& out) {
  const bool banner = t.compare(0, 13, "NCCL version ") == 0 && has(t, " compiled with CUDA ");
  std::string_view j = t;
  const bool brace = !j.empty() && j[0] == '{';
  if (brace) j = trim(j.substr(1));
  const bool json = j.compare(0, 14, "\"nccl_version\"") == 0 && has(j, ":");
  if (json && !brace && n < 2) return false;  // the "{" would be on the line before the first
  if (!banner && !json && t.compare(0, 25, "Group     Comms     Nodes") != 0) return false;
  if (json && !brace) --n;  // the report starts at its "{"
  const int line = static_cast<int>(n > 2147483647u ? 2147483647u : n);
  if (!out.ras_reports.empty()) {
    const Provenance& last = out.ras_reports.back();
    // The text report's banner and table are one report; a JSON report has one start only.
    if (last.source == source && (json ? line == last.line : line - last.line < 64)) return true;
  }
  if (out.ras_reports.size() < 8) out.ras_reports.push_back({source, line});
  return true;
}

// "[MM:SS" or "[H:MM:SS" (tqdm's format_interval) as seconds; -1 when it is not one.
double interval_seconds(std::string_view s) {
  double total = 0;
  int fields = 0;
  std::size_t i = 0;
  while (i < s.size() && fields < 3) {
    std::size_t d = i;
    double v = 0;
    while (d < s.size() && s[d] >= '0' && s[d] <= '9' && d - i < 6) v = v * 10 + (s[d++] - '0');
    if (d == i) return -1;
    total = total * 60 + v;
    ++fields;
    if (d == s.size() || s[d] != ':') {
      i = d;
      break;
    }
    i = d + 1;
  }
  return fields >= 2 && i == s.size() ? total : -1;
}

// tqdm's bar (tqdm/std.py format_meter): "{desc}: {pct}%|{bar}| {n}/{total} [{elapsed}<{remaining},
// {rate}]". A terminal's updates are separated by "\r": the last one on the line is read.
bool progress_bar(std::string_view t, const Bigrams& bg, const std::string& src, std::uint64_t n,
                  FrameworkFacts& out) {
  if (!has(bg, t, "%|")) return false;
  const std::size_t cr = t.rfind('\r');
  if (cr != std::string_view::npos) t = trim(t.substr(cr + 1));
  const std::size_t bar = t.find("%|");
  if (bar == std::string_view::npos) return false;
  const std::size_t close = t.find("| ", bar + 2);
  const std::size_t open = close == std::string_view::npos ? close : t.find(" [", close);
  const std::size_t lt = open == std::string_view::npos ? open : t.find('<', open);
  if (lt == std::string_view::npos || lt - open > 12) return false;
  const std::size_t end = t.find_first_of(",]", lt);
  if (end == std::string_view::npos) return false;
  ProgressBar p;
  p.elapsed_s = interval_seconds(t.substr(open + 2, lt - open - 2));
  if (p.elapsed_s < 0) return false;
  p.remaining_s = interval_seconds(t.substr(lt + 1, end - lt - 1));  // "?" reads as -1
  std::size_t d = bar;
  while (d > 0 && (t[d - 1] == ' ' || (t[d - 1] >= '0' && t[d - 1] <= '9'))) --d;
  std::string_view desc = trim(t.substr(0, d));
  if (!desc.empty() && desc.back() == ':') desc.remove_suffix(1);
  p.desc = clip_text(desc, 120);
  p.text = clip_text(t, kQuoteMax);
  p.where = Provenance{src, static_cast<int>(n)};
  if (!out.longest_progress || p.projected_s() > out.longest_progress->projected_s())
    out.longest_progress = std::move(p);
  return true;
}

bool read_framework_line(std::string_view line, const std::string& source,
                         std::uint64_t line_number, FrameworkFacts& out) {
  const std::string_view t = trim(line);
  if (t.size() < 16) return false;
  const Bigrams bg(t);
  if (progress_bar(t, bg, source, line_number, out)) return false;
  if (!out.container || !out.multi_host || !out.launcher_hosts)
    framework_lines::context_cues(t, bg, source, line_number, out);
  if ((t[0] == 'N' || t[0] == 'G' || t[0] == '"' || t[0] == '{') &&
      ras_start(t, source, line_number, out))
    return false;
  if (const auto l = framework_lines::launcher_failure(t, bg)) {
    add(out, K::kLauncherFailed, l->launcher, l->detail, t, source, line_number);
    return true;
  }
  const Provenance at{source, static_cast<int>(std::min<std::uint64_t>(line_number, 2147483647u))};
  if (!out.launcher)
    if (const auto l = framework_lines::launcher_command(t, bg))
      out.launcher = FrameworkCue{std::string(*l), clip_text(t, kQuoteMax), at};
  if (out.topo_file_settings.size() < 8)
    if (auto s = framework_lines::topo_file_setting(t, bg)) {
      s->text = clip_text(t, kQuoteMax);
      s->where = at;
      out.topo_file_settings.push_back(std::move(*s));
    }
  if (auto h = framework_lines::health_check_failure(t, bg)) {
    ++out.lines;
    if (out.health_checks.size() < 512) {
      h->text = clip_text(t, kQuoteMax);
      h->where = at;
      out.health_checks.push_back(std::move(*h));
    }
    return true;
  }
  return nccl_error(t, bg, source, line_number, out) ||
         aborted_or_hung(t, bg, source, line_number, out) ||
         rendezvous(t, bg, source, line_number, out) || backend(t, bg, source, line_number, out) ||
         crash(t, bg, source, line_number, out) ||
         custom_all_reduce(t, bg, source, line_number, out) ||
         pcie_hang(t, bg, source, line_number, out);
}

}  // namespace trainready
