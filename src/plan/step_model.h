#pragma once
// One optimizer step and the run it adds up to: what the GPUs compute, plus what they wait for
// (communication not hidden behind compute, data not hidden by prefetching), the utilization that
// leaves, and the run length in steps. The planner (candidate_evaluation.cpp) and the acceptance
// check (acceptance.cpp, measured values in place of the plan's assumptions) both call it.
#include <string>

#include "plan/quantity.h"

namespace trainready {

struct StepInputs {
  double compute_seconds = 0;         // compute, pipeline bubble included
  double comm_exposed_seconds = 0;    // data-parallel traffic not hidden behind compute
  double model_parallel_seconds = 0;  // tensor- and pipeline-parallel traffic (exposed)
  double data_exposed_seconds = 0;    // reads prefetching cannot hide
  double total_tokens = 0;
  double tokens_per_step = 0;
};

struct StepEstimate {
  Quantity step_seconds;
  Quantity utilization;
  std::string dominant_wait;  // communication, data, none
  Quantity steps;
  Quantity run_seconds;
};

StepEstimate estimate_step(const StepInputs& in);

}  // namespace trainready
