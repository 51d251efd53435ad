// The compute model: FLOPs per token against NVIDIA NeMo's published model TFLOP/s and tokens/s
// (NVIDIA/NeMo docs/source/performance/performance_summary.md, 24.07, DGX-H100 FP8), where
// model FLOPs per token = (TFLOP/s per GPU) / (tokens/s per GPU).
#include "plan/compute_model.h"

#include <gtest/gtest.h>

#include "catalog/model_presets.h"

namespace trainready {
namespace {

double nemo_flops_per_token(double tflops_per_gpu, double tokens_per_s_per_gpu) {
  return tflops_per_gpu * 1e12 / tokens_per_s_per_gpu;
}

double ours(const std::string& preset) {
  const ModelPreset* p = find_model_preset(preset);
  return model_flops_per_token(p->params, p->layers, p->hidden, p->seq).value;
}

// Within 6%: NeMo counts attention with causal masking and GQA differently; 6N + 12·L·h·s is the
// dense upper bound.
TEST(ComputeModel, FlopsPerTokenMatchNeMo) {
  EXPECT_NEAR(ours("llama3-8b") / nemo_flops_per_token(688, 11883), 1.0, 0.06);
  EXPECT_NEAR(ours("gpt3-175b") / nemo_flops_per_token(802, 745), 1.0, 0.06);
  EXPECT_NEAR(ours("llama2-7b") / nemo_flops_per_token(767, 16634), 1.0, 0.06);
}

TEST(ComputeModel, WithoutAShapeOnlySixN) {
  EXPECT_DOUBLE_EQ(model_flops_per_token(1e9, 0, 0, 0).value, 6e9);
}

TEST(ComputeModel, StepTimeIsFlopsOverGpusPeakAndMfu) {
  ComputeInputs in;
  in.params = 8e9;
  in.tokens_per_step = 1e6;
  in.gpus = 16;
  in.peak_tflops = 1000;
  in.mfu = 0.5;
  ComputeEstimate c = estimate_compute(in);
  EXPECT_NEAR(c.seconds.value, 6 * 8e9 * 1e6 / (16 * 1000e12 * 0.5), 1e-12);
  EXPECT_NEAR(c.backward_seconds.value, c.seconds.value * 2 / 3, 1e-12);
  in.recompute = Recompute::kFull;  // one more forward pass: 8N of work instead of 6N
  EXPECT_NEAR(estimate_compute(in).seconds.value, c.seconds.value * 4 / 3, 1e-12);
  // Narayanan et al. 2021: a 1F1B pipeline of p stages over m micro-batches idles (p − 1)/m.
  in.recompute = Recompute::kSelective;
  in.pp = 4;
  in.micro_batches = 12;
  EXPECT_NEAR(estimate_compute(in).seconds.value, c.seconds.value * (1 + 3.0 / 12), 1e-12);
}

}  // namespace
}  // namespace trainready
