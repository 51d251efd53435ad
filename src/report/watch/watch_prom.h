#pragma once
// watch's Prometheus exposition: the last sample's counters in base units, the interval's label
// and the running label totals. Names: trainready_ + node_exporter's / DCGM's meaning (HELP names
// the series it mirrors), so node_exporter's textfile collector never serves a name twice next to
// its own collectors. Job labels sit on one trainready_job_info series, to be joined.
#include <string>
#include <utility>
#include <vector>

#include "watch/attribution.h"
#include "watch/sample.h"
#include "watch/summary.h"

namespace trainready::watch {

struct PromContext {
  std::vector<std::pair<std::string, std::string>> job_labels;  // --job-label k=v, SLURM_JOB_ID
  const Verdict* last = nullptr;  // the latest interval's label, when there is one
};

std::string watch_prometheus_text(const Sample& s, const Summary& summary, const PromContext& c);

}  // namespace trainready::watch
