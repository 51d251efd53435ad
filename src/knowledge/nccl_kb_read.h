#pragma once
// Reading a NCCL log's messages with the knowledge base: the lines the log analyser kept (distinct
// WARN lines, failure INFO lines, the first error trail, lines no pattern knows) are matched
// against the entries, each with the first cause whose `when` holds in the run's context, and
// ranked as a maintainer reads a log: errors first, then the first failure in time, then how
// decisive the entry is. Only those kept lines are matched, never every line of the log.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "facts/nccl_run_facts.h"
#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_site_releases.h"

namespace trainready {

// One kept line as the knowledge base reads it.
struct NcclKbLine {
  std::string message;  // after "NCCL WARN " / "NCCL INFO " (and the WARN's file:line)
  // The message as NCCL's source spells it, when it holds HIP names RCCL printed for CUDA's
  // (knowledge/nccl_hip_names.h): an entry's pattern reads either. Empty: none.
  std::string spelled;
  NcclKbLevel level = NcclKbLevel::kAny;  // kAny: a framework's line, not NCCL's own
  bool trail = false;                     // a "file:line -> code" trail
  std::string file;                       // "transport/net_ib.cc:123" where NCCL printed it
  // A network library's own log line ("libfabric", "UCX"; empty: NCCL's or a framework's): read
  // only by passthrough entries (text any library passes on: an ibv_wc_status string) and, for
  // libfabric, by the entries written from its source (libfabric-efa.yaml), never as one of
  // NCCL's own messages.
  std::string library;
  LogLine line;
  std::uint64_t count = 1;
  std::set<std::string> hosts;
};

struct NcclMessageReading {
  const NcclKbEntry* entry = nullptr;
  const NcclKbCause* cause = nullptr;      // the first whose `when` holds, else the first
  bool cause_seen = true;                  // false: no cause's `when` holds in this log
  std::vector<const NcclKbCause*> others;  // the alternatives, in the entry's order
  NcclKbLine line;                         // the first line it explains
  std::uint64_t count = 0;                 // lines it explains
  std::set<std::string> hosts;
  std::set<std::string> messages;  // every distinct message it explains
  std::string file_subsystem;      // the subsystem of the failing file, when the file names one
  // It reads the WARN NCCL printed where the failure started: the last WARN before the first
  // "file:line -> code" error trail in the same file (src/include/checks.h: a failing call
  // WARNs, then every caller INFOs "-> code"). A warning-level entry read there is an error.
  bool starts_failure = false;
  // The excerpt begins inside the first error trail, whose WARN it cut off; this is the same
  // call's WARN on another thread, printed just after (starts_failure is set too).
  bool starts_cut_trail = false;
  // The log prints no NCCL version: the releases the places its WARNs and first error trail
  // printed from tell, which the entries, fixed bugs and version conditions were read against
  // (else unknown).
  NcclSiteReleases releases;
  // It reads the first line of the first error trail: the call NCCL checks there, at the
  // releases the log comes from (unknown when the place is not listed or the releases disagree).
  NcclTrailCall call;
};

// The kept lines of a run, in the order the analyser met them.
std::vector<NcclKbLine> nccl_kb_lines(const NcclRunFacts& f);

// The entries whose match, level, kind and versions admit `line` (the coverage tool's test;
// passthrough entries included), in knowledge-base order.
std::vector<const NcclKbEntry*> nccl_kb_matches(const NcclKnowledgeBase& kb, const NcclKbLine& line,
                                                const NcclRunFacts& f);

// When the log shows no NCCL version: the bugs fixed in a later release (fixed_in entries) whose
// message `line` is, as their first cause (the bug), where its context holds. Empty when the log
// shows a version (nccl_kb_matches then admits or rejects the fixed_in entry itself).
std::vector<const NcclKbCause*> nccl_kb_fixed_bugs(const NcclKnowledgeBase& kb,
                                                   const NcclKbLine& line, const NcclRunFacts& f);

// Whether a cause's context holds in this run (unknown facts do not hold); `line_has` reads
// `line`, the line the entry reads (none: it does not hold).
bool nccl_kb_when_holds(const NcclKbWhen& w, const NcclRunFacts& f,
                        const NcclKbLine* line = nullptr);

// The readings of a run, best first; one per entry, every line read by at most one entry.
std::vector<NcclMessageReading> read_nccl_messages(const NcclRunFacts& f,
                                                   const NcclKnowledgeBase& kb);

// The severity of a reading's finding: the entry's, or its cause's when the log shows that cause
// and the cause carries one; raised from warning to error when the line started the failure
// (NcclMessageReading::starts_failure).
Severity nccl_kb_severity(const NcclMessageReading& r);

// Whether a reading belongs to nccl-known-signature (the migrated table and the CUDA / libc
// text NCCL passes through) rather than nccl-message.
bool nccl_kb_is_signature(const NcclKbEntry& e);

}  // namespace trainready
