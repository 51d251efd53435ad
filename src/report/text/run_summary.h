#pragma once
// "What this run was", in labelled lines, for the text report: the NCCL log and the nccl-tests
// result as the analysers read them.
#include <string>
#include <utility>
#include <vector>

#include "facts/collective_progress.h"
#include "facts/nccl_run_facts.h"
#include "facts/nccl_tests_facts.h"
#include "queries/busbw_expectation.h"

namespace trainready {

using SummaryLines = std::vector<std::pair<std::string, std::string>>;

SummaryLines summarize_nccl_log(const NcclRunFacts& f);
// ncclras reports, Flight Recorder dumps and Inspector output: what was read, one line each.
SummaryLines summarize_nccl_telemetry(const CollectiveProgressFacts& f);
SummaryLines summarize_nccl_tests(const NcclTestsFacts& t, const BusbwExpectation* expected);

}  // namespace trainready
