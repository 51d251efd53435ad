#pragma once
// A knowledge-base reading (src/knowledge/nccl_kb_read.h) as a finding: what failed, the cause
// whose context holds (the others as alternatives), the fix, the experiment that confirms it,
// and the source line at its tag. Shared by nccl-message and nccl-known-signature, which split
// the readings of one ranked list, so their ranks keep the maintainer's order across both.
#include <vector>

#include "core/finding.h"
#include "knowledge/nccl_kb_read.h"

namespace trainready {

struct NcclKbFinding {
  const NcclMessageReading* reading;
  int rank;  // Finding::rank: the entry's rank, lowered so the list order holds
};

// The readings of the run, best first, each with its finding rank.
std::vector<NcclKbFinding> nccl_kb_ranked(const std::vector<NcclMessageReading>& readings);

// The call at the first place of the first error trail, in words: "failing call:
// ncclIbRoceGetVersionNum(), checked at transport/net_ib.cc:282 in ncclUpdateGidIndex (NCCL
// 2.21.5)".
std::string nccl_trail_call_text(const NcclTrailCall& c);

// The finding rank nccl-message gives a reading of rank `rank`: below the dedicated NCCL rules
// (ranks 50 and up), which judge the same failure with context from several lines (peers,
// partitions, versions) and were checked against the maintainers' stated causes; above the
// generic nccl-warnings (ranks under 10). The knowledge base's own order is kept by scaling, not
// capping.
inline int nccl_message_rank(int rank) { return rank * 45 / 100; }

// An info reading of an INFO line of a log with NCCL records ("no external plugin found, using the
// internal one"): it explains the line, so nccl-warnings does not quote it back, but on its own it
// is not worth a finding. A WARN read as informational is still reported (as info): a log that
// holds a WARN never ends with no finding. Nor is an excerpt's: a log with no NCCL record whose
// NCCL lines were told by their text alone ("NET/IB : No device found." pasted without its head)
// holds only what the user brought because the run failed, so each reading is reported.
bool nccl_kb_reading_unreported(const NcclMessageReading& r, const NcclRunFacts& f);

// Fills message, severity, rank, evidence, cause and fix of `x` from a reading.
void fill_nccl_kb_finding(Finding& x, const NcclKbFinding& k, const NcclRunFacts& f);

}  // namespace trainready
