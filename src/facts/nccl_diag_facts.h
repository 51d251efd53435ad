#pragma once
// What NCCL's own diagnostics (2.31+) reported, read from their "host:pid NCCL DIAG ..." lines
// (issue 30 item 4; docs/nccl-telemetry.md, "NCCL's own diagnostics"). Two reports print them,
// both at communicator init and both to stdout, whatever NCCL_DEBUG says (DIAG_PRINT,
// src/include/diagnostics_log.h):
// - the active check NCCL_RUN_DIAGNOSTICS=1 runs (src/diagnostics.cc, diagnostics/p2p.cc): every
//   GPU pair's peer access written and read back; 2.32 adds an ib_write_bw network check;
// - the RAS diagnostics NCCL_RUN_RAS_DIAGNOSTICS=1 (or `ncclras -D`) runs (src/ras/
//   diagnostics*.cc): GPU inventory, CUDA driver, ECC, NVLink and NCCL_* settings compared
//   across the ranks of a communicator.
// Both are informational: NCCL goes on with init whatever they find.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "facts/nccl_log_line.h"

namespace trainready {

enum class NcclDiagCheck {
  kP2p,           // active: GPU peer access ("p2p: ...")
  kNetBw,         // active, 2.32+: ib_write_bw between the ranks' NICs ("net bw: ...")
  kGpuInventory,  // RAS: GPU count and model per node
  kCudaDriver,    // RAS: cudaDriverGetVersion
  kGpuDriver,     // RAS, 2.32+: the NVIDIA graphics driver's version (NVML)
  kEcc,           // RAS: volatile ECC counters
  kNvlink,        // RAS: NVLink count and state per GPU
  kEnvironment,   // RAS: NCCL_* variables
  kXid,           // RAS, 2.32+: Xid / SXid events in the kernel log since communicator init
  kRdmaTopo,      // RAS, 2.32+: `rdma_topo check` (rdma-core) on each rank's GPU/NIC topology
  kIommu,         // RAS, 2.32+: IOMMU mode and groups of the GPUs and NICs NCCL uses
  kAts,           // RAS, 2.32+: ATS (ATSCtl in `lspci -vvv`) on the NICs NCCL uses
  kPaths,  // RAS, 2.32+: the kinds of path (NVL, PIX, SYS, NET, ...) the ranks reach peers by
  kOther,  // a check this reader does not know by name (a later release's "Net device")
};

enum class NcclDiagVerdict {
  kOk,           // "[OK]"
  kFlagged,      // "[INFO]" with a finding: a mismatch, errors, inactive links, a failed edge
  kIncomplete,   // the check did not run to the end (gather incomplete, setup failed, timed out)
  kUnavailable,  // the check had nothing to read (NVML without the counter)
  kNote,         // "[INFO]" that reports no fault (peer access enabled for the check, skipped)
};

// One result line of a check.
struct NcclDiagResult {
  NcclDiagCheck check = NcclDiagCheck::kOther;
  std::string check_name;  // as printed: "GPU inventory", "NCCL environment", "Xid/SXid"
  NcclDiagVerdict verdict = NcclDiagVerdict::kOk;
  // What was found, where the wording says: "count mismatch", "model mismatch", "mismatch",
  // "uncorrected", "corrected", "inactive", "link-count mismatch", "outlier", "pair failed",
  // "setup failed", "cleanup failed", "values" (an environment line "NCCL_X=v on rank(s) {..}");
  // for an Xid, NCCL's guidance: "reset GPU", "restart application", "see catalog", "pre-Ampere",
  // "no action"; for an SXid, the driver's class: "fatal", "non-fatal", "unclassified" (or
  // "no action").
  std::string what;
  std::string ranks;  // the rank set as printed: "{4,5,6,7}", "{0,...,7,...} (N=12)"
  // More of what the line says: the variable of an environment line ("NCCL_DEBUG"), the
  // failure of a network pair ("tool missing"), the count of "N more ranks" off the median.
  std::string detail;
  std::string host;  // "host:pid" of the process that printed it
  LogLine line;      // the body after "NCCL DIAG ", and where
  // kXid: the event's code (-1: none), the host the line names (not the process that printed
  // the report), and how many times ("2", "at least 65535").
  long long code = -1;
  std::string node;
  std::string count;
};

// One GPU-to-GPU peer access the active check found failing (diagnostics/p2p.cc's per-edge
// lines, printed by the first rank of each P2P group: a node, an MNNVL clique).
struct NcclDiagEdge {
  std::string failure;  // "peer-memory import failed", "write mismatch", ...
  std::string reason;   // reason= (import, noDescriptor, localCuda, topo, writeLaunch, ...);
                        // "writeMismatch" / "readMismatch" for the lines that print none
  int src_rank = -1, src_dev = -1, dst_rank = -1, dst_dev = -1;  // ranks and CUDA devices
  std::string path;    // NCCL's topology path type: NVL, NVB, PIX, PXB, PHB, SYS, NET, ...
  std::string handle;  // DIRECT, LEGACY_CUDA_IPC, CUMEM_POSIX_FD, CUMEM_FABRIC, CUMEM_OTHER
  std::string advice;  // what NCCL prints after "; " (2.31.2+)
  std::string host;
  LogLine line;
};

struct NcclDiagFacts {
  std::uint64_t lines = 0;           // NCCL DIAG lines read
  std::uint64_t active_reports = 0;  // "=== NCCL Diagnostics ===" headers
  std::uint64_t ras_reports = 0;     // "=== RAS Diagnostics ===" headers
  // The active P2P check's summary (the worst printed): directed GPU pairs tested and passed,
  // pairs skipped because they route through another GPU.
  std::optional<LogLine> p2p_summary;
  std::uint64_t p2p_tested = 0, p2p_passed = 0, p2p_skipped_indirect = 0;
  std::vector<NcclDiagEdge> edges;  // the first 32 failing edges
  std::uint64_t edge_lines = 0;     // every failing edge line
  // Every other result line, distinct (its communicator aside), the first 128; of the [OK] lines
  // only the first of each check (a job with many communicators prints five per communicator).
  std::vector<NcclDiagResult> results;
  std::uint64_t result_lines = 0;
  std::uint64_t ok_lines = 0;
  std::optional<LogLine> active_done;  // "NCCL diagnostics completed in X ms across N ranks"
  std::optional<LogLine> ras_done;     // "RAS diagnostics completed in X ms across N ..."
  // The RAS client's own refusals ("BUSY: diagnostics already in progress", "ERROR:
  // diagnostics only supports text output"; src/ras/client_support.cc).
  std::optional<LogLine> client_refusal;

  bool empty() const { return lines == 0 && !client_refusal; }
  // Directed GPU pairs the worst P2P summary says failed.
  std::uint64_t p2p_failed() const { return p2p_tested - std::min(p2p_passed, p2p_tested); }
  // Flagged result lines, an environment mismatch's value lines aside.
  std::size_t flagged() const {
    std::size_t n = 0;
    for (const NcclDiagResult& x : results)
      n += x.verdict == NcclDiagVerdict::kFlagged && x.what != "values" ? 1 : 0;
    return n;
  }
};

// Names for reports and JSON: "p2p", "net_bw", "gpu_inventory", "cuda_driver", "ecc",
// "nvlink", "environment", "gpu_driver", "xid", "rdma_topo", "iommu", "ats", "paths", "other";
// "ok", "flagged", "incomplete", "unavailable", "note".
inline const char* diag_check_key(NcclDiagCheck c) {
  switch (c) {
    case NcclDiagCheck::kP2p:
      return "p2p";
    case NcclDiagCheck::kNetBw:
      return "net_bw";
    case NcclDiagCheck::kGpuInventory:
      return "gpu_inventory";
    case NcclDiagCheck::kCudaDriver:
      return "cuda_driver";
    case NcclDiagCheck::kEcc:
      return "ecc";
    case NcclDiagCheck::kNvlink:
      return "nvlink";
    case NcclDiagCheck::kEnvironment:
      return "environment";
    case NcclDiagCheck::kGpuDriver:
      return "gpu_driver";
    case NcclDiagCheck::kXid:
      return "xid";
    case NcclDiagCheck::kRdmaTopo:
      return "rdma_topo";
    case NcclDiagCheck::kIommu:
      return "iommu";
    case NcclDiagCheck::kAts:
      return "ats";
    case NcclDiagCheck::kPaths:
      return "paths";
    case NcclDiagCheck::kOther:
      break;
  }
  return "other";
}
inline const char* diag_verdict_key(NcclDiagVerdict v) {
  switch (v) {
    case NcclDiagVerdict::kOk:
      return "ok";
    case NcclDiagVerdict::kFlagged:
      return "flagged";
    case NcclDiagVerdict::kIncomplete:
      return "incomplete";
    case NcclDiagVerdict::kUnavailable:
      return "unavailable";
    case NcclDiagVerdict::kNote:
      break;
  }
  return "note";
}

}  // namespace trainready
