#include "plan/compute_model.h"

#include <algorithm>

#include "catalog/published_runs.h"

namespace trainready {

Quantity model_flops_per_token(double params, int layers, int hidden, int seq) {
  const double attention = 12.0 * layers * hidden * static_cast<double>(seq);
  Quantity q = quantity(6 * params + attention, "FLOP",
                        layers > 0 ? "6·N + 12·L·h·s" : "6·N (no shape: attention left out)",
                        "Transformer Math 101 (C ≈ 6·N per token) + attention 12·L·h·s; checked "
                        "against NVIDIA NeMo's published model TFLOP/s (performance_summary.md)");
  q.in("N", params).in("L", layers).in("h", hidden).in("s", seq);
  return q;
}

ComputeEstimate estimate_compute(const ComputeInputs& in) {
  ComputeEstimate c;
  c.flops_per_token = model_flops_per_token(in.params, in.layers, in.hidden, in.seq);
  c.flops_per_step = quantity(c.flops_per_token.value * in.tokens_per_step, "FLOP",
                              "flops_per_token × tokens_per_step");
  c.flops_per_step.in("flops_per_token", c.flops_per_token.value, "FLOP")
      .in("tokens_per_step", in.tokens_per_step);
  // MFU counts model FLOPs only; full recomputation runs the forward pass twice (8N instead of
  // 6N of work), which costs time at the same hardware rate.
  const double recompute = in.recompute == Recompute::kFull ? 4.0 / 3.0 : 1.0;
  // 1F1B pipelines idle (p − 1)/m of the ideal time, interleaved with v virtual stages
  // (p − 1)/(v·m) (Narayanan et al. 2021, §2.2.1, §2.2.2).
  const double bubble = in.pp > 1 ? static_cast<double>(in.pp - 1) /
                                        (std::max(1, in.vp) * std::max(1, in.micro_batches))
                                  : 0;
  const double rate = in.gpus * in.peak_tflops * 1e12 * in.mfu;
  c.seconds =
      quantity(rate > 0 ? c.flops_per_step.value * recompute * (1 + bubble) / rate : 0, "s",
               "flops_per_step × recompute × (1 + (pp − 1)/(v·m)) / (gpus × peak × MFU)",
               "MFU: planner assumption (H100 BF16 runs reach 0.35-0.45; NeMo FP8 "
               "0.70-0.80 of the BF16 peak); pipeline bubble: Narayanan et al. 2021, "
               "Megatron-LM at scale (arXiv:2104.04473) §2.2.1 (1F1B), §2.2.2 (interleaved)");
  c.seconds.in("flops_per_step", c.flops_per_step.value, "FLOP").in("recompute", recompute);
  c.seconds.in("pp", in.pp).in("v", std::max(1, in.vp)).in("m", in.micro_batches);
  c.seconds.in("gpus", in.gpus).in("peak", in.peak_tflops * 1e12, "FLOP/s").in("MFU", in.mfu);
  c.backward_seconds =
      quantity(c.seconds.value * 2 / 3, "s", "2/3 × compute (backward is 4N of 6N)",
               "Transformer Math 101: C_backward ≈ 2 × C_forward");
  c.backward_seconds.in("compute", c.seconds.value, "s");
  return c;
}

double implied_mfu(const PublishedRun& run, double params, int layers, int hidden,
                   double peak_tflops) {
  // Data parallelism is what tensor, pipeline and context parallelism leave; interleaving (VP
  // virtual stages) divides the 1F1B bubble by VP (Narayanan et al. 2021 §2.2.2): the run's own
  // bubble is taken out, so the MFU is the run's, not inflated by a bubble it did not have.
  const int dp = std::max(1, run.gpus / std::max(1, run.tp * run.pp * run.cp));
  ComputeInputs in;
  in.params = params;
  in.layers = layers;
  in.hidden = hidden;
  in.seq = run.seq;
  in.tokens_per_step = static_cast<double>(run.global_batch) * run.seq;
  in.gpus = run.gpus;
  in.peak_tflops = peak_tflops;
  in.mfu = 1.0;
  in.pp = run.pp;
  in.micro_batches = std::max(1, run.global_batch / std::max(1, run.micro_batch * dp));
  in.vp = std::max(1, run.vp);
  const double ideal = estimate_compute(in).seconds.value;
  const double measured = in.tokens_per_step / (run.tokens_per_s_per_gpu * run.gpus);
  return measured > 0 ? ideal / measured : 0;
}

}  // namespace trainready
