#include "plan/step_model.h"

#include <cmath>

namespace trainready {

StepEstimate estimate_step(const StepInputs& in) {
  StepEstimate e;
  const double comm_wait = in.comm_exposed_seconds + in.model_parallel_seconds;
  const double data_wait = in.data_exposed_seconds;
  const double step = in.compute_seconds + comm_wait + data_wait;
  e.step_seconds = quantity(step, "s", "compute + exposed communication + exposed data");
  e.step_seconds.in("compute", in.compute_seconds, "s").in("communication", comm_wait, "s");
  e.step_seconds.in("model_parallel", in.model_parallel_seconds, "s");
  e.step_seconds.in("data", data_wait, "s");
  e.utilization = quantity(step > 0 ? in.compute_seconds / step : 0, "",
                           "compute / step: the share of each step the GPUs compute");
  e.utilization.in("compute", in.compute_seconds, "s").in("step", step, "s");
  const double threshold = 0.02 * step;
  if (comm_wait <= threshold && data_wait <= threshold)
    e.dominant_wait = "none";
  else
    e.dominant_wait = comm_wait >= data_wait ? "communication" : "data";
  const double steps = in.tokens_per_step > 0 ? std::ceil(in.total_tokens / in.tokens_per_step) : 0;
  e.steps = quantity(steps, "", "ceil(total_tokens / tokens_per_step)");
  e.steps.in("total_tokens", in.total_tokens).in("tokens_per_step", in.tokens_per_step);
  e.run_seconds = quantity(steps * step, "s", "steps × step");
  e.run_seconds.in("steps", steps).in("step", step, "s");
  return e;
}

}  // namespace trainready
