#pragma once
// Compute time per optimizer step: model FLOPs per token (6N + 12·L·h·s: the 6N of Kaplan and
// Transformer Math plus attention's score and context products) over the GPUs' dense peak times
// an assumed model FLOPs utilization (MFU), which the report shows and --mfu sets.
#include "facts/job_spec.h"
#include "plan/quantity.h"

namespace trainready {

struct ComputeInputs {
  double params = 0;
  int layers = 0;  // 0 when the shape is unknown: attention FLOPs are then left out
  int hidden = 0;
  int seq = 0;
  double tokens_per_step = 0;
  int gpus = 1;
  double peak_tflops = 0;  // dense, per GPU, at the job's precision
  double mfu = 0.4;
  Recompute recompute = Recompute::kSelective;
  int pp = 1;             // pipeline stages
  int micro_batches = 1;  // per optimizer step and pipeline (gradient accumulation)
  int vp = 1;             // virtual stages per rank (interleaved 1F1B)
};

struct ComputeEstimate {
  Quantity flops_per_token;
  Quantity flops_per_step;
  Quantity seconds;  // compute time of one optimizer step, no waiting, pipeline bubble included
  Quantity backward_seconds;
};

Quantity model_flops_per_token(double params, int layers, int hidden, int seq);
ComputeEstimate estimate_compute(const ComputeInputs& in);

// The MFU a published run implies under this compute model: the step time the model gives at
// MFU 1 for the run's layout (GPUs, batch, sequence, pipeline bubble as the planner counts it:
// data parallelism = GPUs / (tp × pp), micro-batches = GBS / (MBS × dp)), over the measured step
// GBS × seq / (tokens/s/GPU × GPUs). Planning that layout at this MFU reproduces the row.
struct PublishedRun;
double implied_mfu(const PublishedRun& run, double params, int layers, int hidden,
                   double peak_tflops);

}  // namespace trainready
