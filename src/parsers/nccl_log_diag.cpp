// NCCL's own diagnostics in a log (facts/nccl_diag_facts.h): each DIAG line read by
// parsers/nccl_diag_line.h and kept, bounded, in NcclRunFacts::diagnostics.
#include <cctype>
#include <string>

#include "parsers/nccl_diag_line.h"
#include "parsers/nccl_log_internal.h"

namespace trainready {

namespace {
constexpr std::size_t kDiagEdges = 32;
constexpr std::size_t kDiagResults = 128;
constexpr std::size_t kDiagSeen = 4096;  // past it lines are counted, no longer told apart

// A result's text without its communicator ("... in comm 0x1234", "in comm 0x1/0x2/0x3"): every
// communicator's init repeats the same findings.
std::string without_comm(std::string_view body) {
  std::string out(body.substr(0, 512));
  const std::size_t c = out.find(" in comm 0x");
  if (c == std::string::npos) return out;
  std::size_t e = c + 9;
  while (e < out.size() &&
         (std::isxdigit(static_cast<unsigned char>(out[e])) || out[e] == 'x' || out[e] == '/'))
    ++e;
  return out.erase(c, e - c);
}
}  // namespace

bool NcclLogAnalyzer::State::diag_line(std::string_view line, std::uint64_t n, bool named) {
  NcclDiagFacts& g = f.diagnostics;
  const std::optional<NcclDiagLine> d = named ? find_nccl_diag(line) : std::nullopt;
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
      if (!g.p2p_summary || r.tested - std::min(r.passed, r.tested) > g.p2p_failed()) {
        g.p2p_summary = log_line(text, n);
        g.p2p_tested = r.tested, g.p2p_passed = r.passed;
        g.p2p_skipped_indirect = r.skipped_indirect;
      }
      break;
    }
    case K::kEdge: {
      // Each communicator's init checks the same pairs again: one line per pair and failure.
      const std::string key = "edge " + std::string(d->host) + " " +
                              std::to_string(r.edge.src_dev) + ">" +
                              std::to_string(r.edge.dst_dev) + " " + r.edge.failure;
      if (diag_seen.count(key)) break;
      if (diag_seen.size() < kDiagSeen) diag_seen.insert(key);
      ++g.edge_lines;
      if (g.edges.size() < kDiagEdges) {
        r.edge.host = std::string(d->host);
        r.edge.line = log_line(text, n);
        g.edges.push_back(std::move(r.edge));
      }
      break;
    }
    case K::kResult:
    case K::kUnknown: {
      ++g.result_lines;
      if (r.kind == K::kUnknown) {
        // A DIAG line of a later release, in no shape here: kept as a note, quoted as printed.
        r.result.verdict = NcclDiagVerdict::kNote;
        r.result.what = "unread";
      }
      // [OK] lines: counted, and the first of each check kept.
      std::string key = r.result.verdict == NcclDiagVerdict::kOk
                            ? "ok " + r.result.check_name
                            : "result " + without_comm(d->body);
      if (r.result.verdict == NcclDiagVerdict::kOk) ++g.ok_lines;
      const bool seen = diag_seen.count(key) > 0;
      if (!seen && diag_seen.size() < kDiagSeen) diag_seen.insert(std::move(key));
      if (seen) break;
      r.result.host = std::string(d->host);
      r.result.line = log_line(text, n);
      if (g.results.size() < kDiagResults) {
        g.results.push_back(std::move(r.result));
      } else if (r.result.verdict == NcclDiagVerdict::kFlagged) {
        // Full: a finding takes the place of the last note, [OK] or incomplete line.
        for (auto it = g.results.rbegin(); it != g.results.rend(); ++it)
          if (it->verdict != NcclDiagVerdict::kFlagged) {
            *it = std::move(r.result);
            break;
          }
      }
      break;
    }
  }
  return true;
}

}  // namespace trainready
