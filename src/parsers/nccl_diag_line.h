#pragma once
// NCCL's own diagnostics lines (2.31+, facts/nccl_diag_facts.h): "host:pid NCCL DIAG <body>",
// printed by DIAG_PRINT (src/include/diagnostics_log.h: fprintf(stdout, "%s:%d " fmt "\n",
// gethostname(), getpid())) with no thread id and no device, and sent the same way to `ncclras -D`
// (rasDiagnosticsFormatLine, src/ras/diagnostics.cc). NVIDIA's docs show the active report
// without the "host:pid " (diagnostics.rst), so a line may start at "NCCL DIAG".
// Formats read from NVIDIA/nccl's source: the dev branch at 2.31.0a16, v2.31.2-1 (commit
// 8898068), and 2.32's docs (v2.32.3-1 diagnostics.rst / ras.rst) where its source is not at hand.
#include <cstdint>
#include <optional>
#include <string_view>

#include "facts/nccl_diag_facts.h"

namespace trainready {

struct NcclDiagLine {
  std::string_view host;  // "node0:24563", "" when the line has no prefix
  std::string_view body;  // after "NCCL DIAG "
};

// The DIAG head in a line whose launcher prefix is already off; nullopt when there is none.
std::optional<NcclDiagLine> find_nccl_diag(std::string_view line);

struct NcclDiagReading {
  enum class Kind {
    kActiveHeader,  // "=== NCCL Diagnostics ==="
    kRasHeader,     // "=== RAS Diagnostics ==="
    kActiveDone,    // "NCCL diagnostics completed in %.1f ms across %d ranks"
    kRasDone,       // "RAS diagnostics completed in %.1f ms across %d ranks|RAS peers"
    kP2pSummary,    // "[OK]   p2p: all 56 directed GPU P2P edges verified", 2.32's wording too
    kEdge,          // a failing edge: "p2p: write mismatch srcRank=0 ... path=NVL handle=DIRECT"
    kResult,        // any other result line (result.check, result.verdict, result.what)
    kUnknown,       // a DIAG line of no shape here
  };
  Kind kind = Kind::kUnknown;
  std::uint64_t tested = 0, passed = 0, skipped_indirect = 0;  // kP2pSummary
  NcclDiagEdge edge;      // kEdge (host and line left to the caller)
  NcclDiagResult result;  // kResult (host and line left to the caller)
};

NcclDiagReading read_nccl_diag_body(std::string_view body);

// The RAS client's refusal of a diagnostics request (src/ras/client_support.cc): "BUSY:
// diagnostics already in progress", "ERROR: diagnostics only supports text output", "ERROR:
// diagnostics failed to start (%d)".
bool is_ras_diag_refusal(std::string_view line);

}  // namespace trainready
