#pragma once
// An `ncclras` report pasted inside a job's log (issue 30 item 4): the log reader notes where a
// report starts (FrameworkFacts::ras_reports); this reads the report from there, with the
// launcher prefixes, colour and CRs a log adds taken off each line, for the RAS rules.
#include <set>
#include <string>
#include <vector>

#include "core/fact.h"
#include "facts/collective_progress.h"

namespace trainready {

// One report per start not in `skip` (files already read whole as RAS output). A start whose
// text is not a whole report (cut short by the paste) is left out, not an error.
std::vector<RasReport> read_pasted_ras(const std::vector<Provenance>& starts,
                                       const std::set<std::string>& skip);

}  // namespace trainready
