#pragma once
// Memory per GPU the way Megatron-LM counts it (megatron/training/theoretical_memory_usage.py):
// the parameters of the most loaded model shard (the first pipeline stage, with the embedding)
// with grouped-query attention, SwiGLU, an untied output layer and routed experts sharded over
// expert parallelism; 18 bytes per parameter, or 6 + 12/d with the distributed optimizer (bf16
// parameters, fp32 main gradients, fp32 main parameters and Adam states,
// docs/user-guide/features/dist_optimizer.md); activations of the first stage after Korthikanti
// et al. 2022 Table 2 with the interleaved schedule's penalty. docs/plan.md gives the formulas.
#include "facts/job_spec.h"
#include "plan/model_shape.h"
#include "plan/quantity.h"

namespace trainready {

// The version of Megatron-LM the formulas are read from, named in every figure.
extern const char* const kMegatronSource;

struct MegatronInputs {
  ModelShape model;
  int tp = 1;
  int pp = 1;
  int vp = 1;  // virtual stages per pipeline rank (interleaved 1F1B); 1: not interleaved
  int dp = 1;
  int ep = 1;  // expert parallelism (MoE); experts are sharded over ep × tp
  int micro_batch = 1;
  int micro_batches = 1;  // per pipeline per step (gradient accumulation)
  bool sequence_parallel = false;
  Recompute recompute = Recompute::kSelective;
  bool distributed_optimizer = false;
};

struct MegatronMemory {
  Quantity params_total;     // the whole model, as Megatron counts it
  Quantity params_on_shard;  // on the most loaded GPU
  Quantity weight_and_optimizer;
  Quantity activations;
  Quantity total;  // weight_and_optimizer + activations (Megatron adds nothing else)
};

// Vocabulary padded as Megatron pads it: up to a multiple of 128 × tp.
int megatron_padded_vocab(int vocab, int tp);
MegatronMemory megatron_memory(const MegatronInputs& in);

}  // namespace trainready
