#pragma once
// The first failure in time before what follows it (issue 30 item 5). A maintainer reads a
// failed run from the first failure in time across ranks: a sticky CUDA error, a peer that
// exited, a watchdog timeout or a flushed work request that came later is a consequence of it.
// Rules say when the failure a finding reads first showed (Finding::onset) and whether it is
// such a consequence (Finding::consequence); this pass only orders.
#include <vector>

#include "core/finding.h"

namespace trainready {

// -1 when onset a is known to come before b, 1 when after, 0 when the log cannot tell: by
// timestamps where both lines carry one, else by line order in one file within one process
// (a line that names no process is read as the file's own stream, as a launcher merges it).
int compare_onsets(const FailureOnset& a, const FailureOnset& b);

// For each consequence (in report order), the earliest failure that is not itself a
// consequence and is known to come before it: when that failure is listed after it, the
// failure moves to the consequence's place (raised to its severity: the run failed from it),
// and both say so, with what confirms the reading. Everything else keeps its order.
void put_first_failure_first(std::vector<Finding>& findings);

}  // namespace trainready
