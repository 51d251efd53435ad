#pragma once
// The reading of a ncclResult_t that no NCCL WARN line explains: its causes from the table in
// knowledge/nccl_result_causes.h, ranked by what the log shows (a container, several hosts,
// NCCL_GRAPH_FILE set), the top one with its confirming experiment. framework-nccl-error and
// nccl-system-error both read results this way, so one failure gets one account.
#include <string>
#include <vector>

#include "core/finding.h"
#include "facts/nccl_run_facts.h"

namespace trainready {

// Adds the ranked causes of `result` to x.cause, their fixes to x.fix and the cue lines to
// x.evidence, and sets x.rank; false (x unchanged) when the table has no cause for `result`.
bool nccl_result_ranked_reading(Finding& x, const NcclRunFacts& f, const std::string& result);

// The framework's failure lines (a ncclResult_t it reports, an aborted communicator) that
// framework-nccl-error reads, in the order first seen; empty when NCCL's own lines already give a
// reading (a WARN the knowledge base reads, a timeout, an issue other than a quoted CUDA or
// internal error), or when that rule reads a crash inside NCCL or a CUDA failure of nccl-tests'
// own instead. nccl-warnings leaves these lines to it: one
// failure, one account.
std::vector<const FrameworkEvent*> framework_result_events(const NcclRunFacts& f);

}  // namespace trainready
