// NCCL's own diagnostics in a log (facts/nccl_diag_facts.h): each DIAG line read by
// parsers/nccl_diag_line.h and kept, bounded, in NcclRunFacts::diagnostics.
#include "parsers/nccl_diag_line.h"
#include "parsers/nccl_log_internal.h"

namespace trainready {

namespace {
constexpr std::size_t kDiagEdges = 32;
constexpr std::size_t kDiagResults = 128;
}  // namespace

bool NcclLogAnalyzer::State::diag_line(std::string_view line, std::uint64_t n) {
  NcclDiagFacts& g = f.diagnostics;
  const std::optional<NcclDiagLine> d = find_nccl_diag(line);
  if (!d) {
    if (!is_ras_diag_refusal(line)) return false;
    if (!g.client_refusal) g.client_refusal = log_line(line, n);
    return true;
  }
  ++g.lines;
  ++f.nccl_lines;
  const std::string_view whole = trim(line);
  const std::string_view text = whole.substr(
      static_cast<std::size_t>((d->host.empty() ? d->body.data() : d->host.data()) - whole.data()));
  NcclDiagReading r = read_nccl_diag_body(d->body);
  using K = NcclDiagReading::Kind;
  switch (r.kind) {
    case K::kActiveHeader:
      ++g.active_reports;
      break;
    case K::kRasHeader:
      ++g.ras_reports;
      break;
    case K::kActiveDone:
      if (!g.active_done) g.active_done = log_line(text, n);
      break;
    case K::kRasDone:
      if (!g.ras_done) g.ras_done = log_line(text, n);
      break;
    case K::kP2pSummary: {
      // Each communicator's init runs the check again: the worst summary is the one to show.
      const std::uint64_t failed = r.tested - std::min(r.passed, r.tested);
      const std::uint64_t was = g.p2p_tested - std::min(g.p2p_passed, g.p2p_tested);
      if (!g.p2p_summary || failed > was) {
        g.p2p_summary = log_line(text, n);
        g.p2p_tested = r.tested, g.p2p_passed = r.passed;
        g.p2p_skipped_indirect = r.skipped_indirect;
      }
      break;
    }
    case K::kEdge:
      ++g.edge_lines;
      if (g.edges.size() < kDiagEdges) {
        r.edge.host = std::string(d->host);
        r.edge.line = log_line(text, n);
        g.edges.push_back(std::move(r.edge));
      }
      break;
    case K::kResult:
    case K::kUnknown: {
      ++g.result_lines;
      if (r.kind == K::kUnknown) {
        // A DIAG line of a later release, in no shape here: kept as a note, quoted as printed.
        r.result.verdict = NcclDiagVerdict::kNote;
        r.result.what = "unread";
      }
      const std::string body = quote(d->body);
      bool seen = false;
      for (const NcclDiagResult& x : g.results) {
        const std::string_view t = x.line.text;
        seen = seen || (t.size() >= body.size() && t.substr(t.size() - body.size()) == body);
      }
      if (!seen && g.results.size() < kDiagResults) {
        r.result.host = std::string(d->host);
        r.result.line = log_line(text, n);
        g.results.push_back(std::move(r.result));
      }
      break;
    }
  }
  return true;
}

}  // namespace trainready
