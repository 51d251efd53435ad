#include "rules/run/nccl_kb_finding.h"

#include <algorithm>

#include "rules/run/run_evidence.h"
#include "rules/supporting_readings.h"

namespace trainready {

// A dedicated rule that cites the same line judged it with context from several lines: the
// engine folds these readings into that finding.
bool is_supporting_reading_rule(std::string_view rule_id) {
  return rule_id == "nccl-message" || rule_id == "nccl-known-signature";
}

std::vector<NcclKbFinding> nccl_kb_ranked(const std::vector<NcclMessageReading>& readings) {
  std::vector<NcclKbFinding> out;
  int last = 101;
  Severity last_sev = Severity::kError;
  for (const NcclMessageReading& r : readings) {
    if (nccl_kb_severity(r) != last_sev) last = 101;  // ranks order within one severity
    last_sev = nccl_kb_severity(r);
    last = std::max(0, std::min(r.entry->rank, last - 1));
    out.push_back({&r, last});
  }
  return out;
}

std::string nccl_trail_call_text(const NcclTrailCall& c) {
  std::string releases;
  if (c.tags.size() <= 3) {
    for (const std::string& t : c.tags) releases += (releases.empty() ? "" : ", ") + t;
  } else {
    releases = c.tags.front() + " .. " + c.tags.back() + " (" + std::to_string(c.tags.size()) +
               " listed releases)";
  }
  const std::string in = c.function.empty() ? "" : " in " + c.function;
  const std::string deeper = c.passes.empty()
                                 ? ""
                                 : "; another thread's trail starts there and passes " + c.passes +
                                       ", where the log's first trail starts cut";
  if (c.callee.empty())
    return "where the trail starts: " + c.place + in +
           ", a check of a result or a condition, not of a call made there (NCCL " + releases +
           deeper + ")";
  return "failing call: " + c.callee + "(), checked at " + c.place + in + " (NCCL " + releases +
         deeper + ")";
}

bool nccl_kb_reading_unreported(const NcclMessageReading& r, const NcclRunFacts& f) {
  return nccl_kb_severity(r) == Severity::kInfo && r.line.level != NcclKbLevel::kWarn &&
         !f.streams.empty();
}

void fill_nccl_kb_finding(Finding& x, const NcclKbFinding& k, const NcclRunFacts& f) {
  const NcclMessageReading& r = *k.reading;
  const NcclKbEntry& e = *r.entry;
  x.message = e.what + " [" + e.id + "]";
  x.severity = nccl_kb_severity(r);
  x.rank = k.rank;
  // A failure in time: an error NCCL returned from (a WARN, a "-> code" trail, a framework's
  // or a pasted line), not an INFO line it went on from (a fallback, a device it skipped).
  if (x.severity == Severity::kError && (r.line.level != NcclKbLevel::kInfo || r.line.trail))
    x.onset = onset_of(r.line.line);
  x.consequence = e.consequence;
  x.evidence.push_back({r.line.line.text, r.line.line.where});
  if (!r.line.file.empty())
    x.evidence.push_back({"failing file " + r.line.file +
                              (r.file_subsystem.empty() ? "" : " (" + r.file_subsystem + ")"),
                          {}});
  if (r.count > 1 || r.hosts.size() > 1)
    x.evidence.push_back({std::to_string(r.count) + " line(s)" +
                              (r.hosts.empty() ? "" : " on " + join_limited(r.hosts)),
                          {}});
  // Matched on a trace line: the WARN NCCL printed is what the user searches for; quote it.
  if (e.kind == NcclKbKind::kTrail && !f.warnings.empty())
    x.evidence.push_back(
        {"first WARN: " + f.warnings.front().first.text, f.warnings.front().first.where});
  if (r.starts_cut_trail)
    x.evidence.push_back(
        {"the failure started here: the log begins inside the first error trail (\"-> code\"), "
         "whose WARN it cut off; this WARN, from the file that trail starts in, is the same "
         "failure on another thread",
         {}});
  else if (r.starts_failure)
    x.evidence.push_back(
        {"the failure started here: the first error trail (\"-> code\") follows "
         "this WARN",
         {}});
  if (f.versions.size() == 1)
    x.evidence.push_back({"NCCL version " + f.versions.begin()->first, {}});
  if (r.releases.known()) {
    std::string sites;
    for (const std::string& s : r.releases.sites) sites += (sites.empty() ? "" : ", ") + s;
    x.evidence.push_back({"NCCL " + r.releases.describe() +
                              ", by the places its WARNs and error trail were printed from (" +
                              sites + "): the log prints no version",
                          {}});
  }
  if (r.call.known()) x.evidence.push_back({nccl_trail_call_text(r.call), {}});
  x.cause = r.cause_seen ? r.cause->cause
                         : "The log does not show what decides between this message's causes; "
                           "the likeliest: " +
                               r.cause->cause;
  if (!r.others.empty()) {
    x.cause += " Other causes of this message:";
    int i = 0;
    for (const NcclKbCause* c : r.others) {
      if (++i > 3) break;
      x.cause += " (" + std::to_string(i) + ") " + c->cause;
    }
  }
  x.cause += " (source: " + e.source + (e.doc.empty() ? "" : "; " + e.doc) + ")";
  x.fix = r.cause->fix + " Confirm: " + r.cause->confirm;
  // Not decided by the line's context: no cause's `when` holds, or the one taken is the entry's
  // fall-through (no `when`) among others. Its fix is as general as a rule's
  // (Finding::general_fix).
  x.general_fix = !r.cause_seen || (r.cause->when.empty() && e.causes.size() > 1);
}

}  // namespace trainready
