// nccl-diag-p2p: NCCL's own active check (NCCL_RUN_DIAGNOSTICS=1, 2.31+) found GPU pairs whose
// peer access failed: written and read back through the path NCCL would use, the data did not
// arrive, or the memory could not be shared (src/diagnostics/p2p.cc).
#include <algorithm>
#include <utility>
#include <vector>

#include "rules/rule_factories.h"
#include "rules/run/run_evidence.h"

namespace trainready {
namespace {

// What NCCL 2.31.2 prints after "; " for an edge (ncclDiagP2pEdgeAdvice, p2p.cc:198-217), for a
// log of the dev branch's wording, which prints none.
std::string edge_advice(const NcclDiagEdge& e) {
  // An import that failed: the handle's advice (ncclDiagP2pImportAdvice, p2p.cc:222-232), a
  // fabric handle's being the edge's.
  if (e.reason == "import" && e.handle != "CUMEM_FABRIC" && e.path != "NET") {
    if (e.handle == "DIRECT")
      return "inspect preceding CUDA peer-access or virtual-memory mapping errors on the source "
             "rank";
    if (e.handle == "LEGACY_CUDA_IPC")
      return "check CUDA IPC support, GPU visibility, and process or container isolation";
    if (e.handle == "CUMEM_POSIX_FD")
      return "check cuMem POSIX-FD sharing support and process or container permissions";
    return "check CUDA virtual-memory handle support and permissions between the processes";
  }
  if (e.handle == "CUMEM_FABRIC" || e.path == "NET")
    return "check the IMEX domain with 'nvidia-imex-ctl -H -N' (nodes READY, connectivity C) and "
           "verify access to /dev/nvidia-caps-imex-channels/channel*";
  if (e.path == "NVL" || e.path == "NVB")
    return "check the single-node NVLink topology and peer-access state with 'nvidia-smi topo -m' "
           "and 'nvidia-smi topo -p2p n'";
  if (e.path == "PIX" || e.path == "PXB" || e.path == "PHB" || e.path == "SYS")
    return "check the affected pair with 'nvidia-smi topo -p2p p', then check Linux bare-metal "
           "IOMMU mode and PCIe ACS settings";
  return "inspect the affected GPU pair with 'nvidia-smi topo -m' and the applicable "
         "'nvidia-smi topo -p2p' check";
}

// Why an edge fails, by the reason p2p.cc records (ncclDiagP2pReasonStr, p2p.cc:166-186) and
// the handle the memory was shared with (p2p.cc:149-161).
std::string edge_cause(const NcclDiagEdge& e) {
  const std::string& r = e.reason;
  if (r == "writeMismatch" || r == "readMismatch")
    return "The data that arrived is not what was written: the path between these GPUs "
           "corrupts or drops peer writes or reads. Over PCIe on bare metal that is usually "
           "the IOMMU or PCIe ACS redirecting peer traffic through the root complex (NCCL's "
           "troubleshooting guide, \"PCI Access Control Services (ACS)\": disable ACS on "
           "bare-metal PCI bridges); over NVLink, a link or NVSwitch fault.";
  if (r == "import") {
    if (e.handle == "LEGACY_CUDA_IPC")
      return "The destination's memory could not be opened through CUDA IPC: the processes do "
             "not see the same GPUs, or a container isolates them (no shared IPC namespace).";
    if (e.handle == "CUMEM_POSIX_FD")
      return "The destination's cuMem allocation could not be imported through a POSIX file "
             "descriptor: the processes may not share file descriptors (container or "
             "process permissions).";
    if (e.handle == "CUMEM_FABRIC")
      return "The fabric handle (multi-node NVLink) could not be imported: the IMEX service or "
             "its channel is not available to this process.";
    return "The destination's memory could not be mapped into the source rank.";
  }
  if (r == "noDescriptor")
    return "The destination rank published no buffer for the check: its allocation, export or "
           "initialization failed before it.";
  if (r == "localCuda")
    return "The source rank's own CUDA setup for the check (device, stream, allocation) failed.";
  if (r == "topo") return "NCCL's topology check for this pair failed.";
  if (r == "writeLaunch" || r == "readLaunch" || r.empty())
    return "The check's kernel could not be launched or did not finish on the source rank.";
  // A reason of a later release (the line says what it saw).
  return "NCCL's check recorded reason=" + r + " for this pair.";
}

std::string edge_name(const NcclDiagEdge& e) {
  std::string s = "rank " + std::to_string(e.src_rank) + " (GPU " + std::to_string(e.src_dev) +
                  ") -> rank " + std::to_string(e.dst_rank) + " (GPU " + std::to_string(e.dst_dev) +
                  ")";
  if (!e.path.empty()) s += " over " + e.path;
  if (!e.handle.empty() && e.handle != "NONE") s += ", " + e.handle;
  // Printed by the first rank of the pair's P2P group: its node, unless the group spans nodes
  // (multi-node NVLink).
  if (!e.host.empty() && e.path != "NET" && e.handle != "CUMEM_FABRIC")
    s += ", on " + e.host.substr(0, e.host.rfind(':'));
  return s;
}

class NcclDiagP2p : public Rule {
 public:
  std::string_view id() const override { return "nccl-diag-p2p"; }
  Severity severity() const override { return Severity::kError; }
  std::string_view title() const override {
    return "NCCL's own P2P check (NCCL_RUN_DIAGNOSTICS=1) found GPU pairs that fail peer access";
  }
  RuleScope scope() const override { return RuleScope::kRunLog; }

  RuleOutcome evaluate(const RuleContext& ctx) const override {
    const NcclDiagFacts& g = ctx.nccl_log->diagnostics;
    RuleOutcome o;
    const std::uint64_t failed = g.p2p_failed();
    if (failed > 0 || !g.edges.empty()) o.findings.push_back(failing(g, failed));
    // The check could not run to its end: nothing was verified by it.
    for (const NcclDiagResult& x : g.results) {
      if (x.check != NcclDiagCheck::kP2p || x.verdict != NcclDiagVerdict::kIncomplete) continue;
      Finding f = finding("NCCL's P2P check did not complete: " + x.what);
      f.severity = Severity::kInfo;
      f.evidence.push_back(evidence(x.line));
      f.cause =
          "A rank's setup for the check failed (allocation, rank set, bootstrap): the pairs "
          "were not verified. NCCL goes on with init; the check is informational "
          "(diagnostics.cc returns ncclSuccess whatever it found).";
      f.fix =
          "Read the WARN lines before it (NCCL_DEBUG=WARN or INFO) on the rank it names; "
          "rerun with NCCL_RUN_DIAGNOSTICS=1 once that is fixed.";
      o.findings.push_back(std::move(f));
      break;
    }
    return o;
  }

 private:
  Finding failing(const NcclDiagFacts& g, std::uint64_t failed) const {
    std::string what;
    if (g.p2p_tested > 0)
      what = std::to_string(failed) + " of " + std::to_string(g.p2p_tested) +
             " directed GPU pairs failed NCCL's own peer-access check";
    else
      what = std::to_string(g.edge_lines) + " GPU pair(s) failed NCCL's own peer-access check";
    Finding f = finding(what);
    f.rank = 85;
    if (g.p2p_summary) f.evidence.push_back(evidence(*g.p2p_summary));
    // The edges by what failed, the first of each as evidence: data that came back wrong
    // first (it corrupts NCCL's traffic), the rest in the order printed.
    std::vector<std::pair<std::string, std::vector<const NcclDiagEdge*>>> by;
    for (int pass = 0; pass < 2; ++pass)
      for (const NcclDiagEdge& e : g.edges) {
        const bool mismatch = e.reason == "writeMismatch" || e.reason == "readMismatch";
        if (mismatch != (pass == 0)) continue;
        auto it =
            std::find_if(by.begin(), by.end(), [&](const auto& b) { return b.first == e.failure; });
        if (it == by.end()) it = by.insert(by.end(), {e.failure, {}});
        it->second.push_back(&e);
      }
    std::string cause, fix;
    bool path_fault = false;  // data or mapping failed on the path itself, not an earlier error
    for (const auto& [failure, edges] : by) {
      const NcclDiagEdge& e = *edges.front();
      f.evidence.push_back(evidence(e.line));
      std::string pairs;
      for (std::size_t i = 0; i < edges.size() && i < 4; ++i)
        pairs += (i ? "; " : "") + edge_name(*edges[i]);
      if (edges.size() > 4) pairs += " and " + std::to_string(edges.size() - 4) + " more";
      cause += (cause.empty() ? "" : " ") + failure + " (" + pairs + "): " + edge_cause(e);
      path_fault = path_fault || e.reason == "writeMismatch" || e.reason == "readMismatch" ||
                   e.reason == "import" || e.reason == "topo";
      const std::string advice = e.advice.empty() ? edge_advice(e) : e.advice;
      if (fix.find(advice) == std::string::npos) fix += (fix.empty() ? "" : "; ") + advice;
    }
    if (by.empty()) {
      f.cause =
          "NCCL's summary says some pairs failed; the lines naming them are printed to stdout "
          "by the first rank of each node (or NVLink clique) and are not in this log.";
      f.fix =
          "Give the stdout of every node's first rank (the NCCL DIAG lines after the summary); "
          "they name each failing pair, its path and why.";
      return f;
    }
    if (g.edge_lines > g.edges.size())
      cause += " (" + std::to_string(g.edge_lines) + " failing pair lines in all.)";
    f.cause = cause + " (Ranks are those of the communicator whose init ran the check.)";
    f.fix = "NCCL's advice: " + fix + ".";
    if (path_fault)
      f.fix +=
          " Until the pair is fixed, NCCL_P2P_DISABLE=1 keeps jobs off the GPU peer path "
          "(through host memory, much slower); drain a node whose NVLink pairs fail.";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> make_nccl_diag_p2p() { return std::make_unique<NcclDiagP2p>(); }

}  // namespace trainready
