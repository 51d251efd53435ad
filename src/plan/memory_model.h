#pragma once
// Memory per GPU for training: model states (weights, gradients, optimizer states) per ZeRO
// stage in two conventions, activations after Korthikanti et al., buffers and the CUDA context,
// against the GPU's memory less a headroom. docs/plan.md gives every formula with its source.
#include <optional>

#include "facts/job_spec.h"
#include "plan/megatron_memory.h"
#include "plan/quantity.h"

namespace trainready {

// Bytes per parameter of each model state (Transformer Math 101; ZeRO §3.1).
struct StateBytes {
  double weights = 0;    // b_w
  double gradients = 0;  // b_g
  double optimizer = 0;  // K: fp32 master copy (mixed precision) + the optimizer's moments
  double total() const { return weights + gradients + optimizer; }
};
StateBytes state_bytes(Precision precision, Optimizer optimizer);

struct StatesInputs {
  double params = 0;  // Ψ, whole model
  int dp = 1;         // N_d: data-parallel degree (ranks a state is sharded over)
  int tp = 1;
  int pp = 1;
  int zero = 0;
  Offload offload = Offload::kNone;
  StateBytes bytes;
  double largest_layer_params = 0;  // DeepSpeed's ZeRO-3 gather buffer is 4 bytes of it
};

// The ZeRO paper's per-GPU model states: DDP (b_w+b_g+K)Ψ', ZeRO-1 (b_w+b_g)Ψ' + KΨ'/N_d,
// ZeRO-2 b_wΨ' + (b_g+K)Ψ'/N_d, ZeRO-3 (b_w+b_g+K)Ψ'/N_d, with Ψ' = Ψ/(tp·pp); offloaded states
// leave the GPU.
Quantity model_states_paper(const StatesInputs& in);
// DeepSpeed's estimators (estimate_zero2/3_model_states_mem_needs) as of v0.14.3 and since:
// ZeRO-2 2P + 18P/G (2P with the optimizer offloaded), ZeRO-3 4·Lmax + 18P/G (2P/G optimizer
// offloaded, 0 all offloaded). Stages 0 and 1 and optimizers other than mixed-precision Adam have
// no estimator: nullopt.
std::optional<Quantity> model_states_deepspeed(const StatesInputs& in);
// The estimator before DeepSpeed v0.14.3 (PR #5099), where it differs: ZeRO-2 without offload,
// 4P + 16P/G (still the figure of DeepSpeed's "Memory Requirements" docs). nullopt elsewhere.
std::optional<Quantity> model_states_deepspeed_before_0_14_3(const StatesInputs& in);

struct ActivationInputs {
  int seq = 0;          // s
  int micro_batch = 1;  // b
  int hidden = 0;       // h
  int heads = 0;        // a
  int layers = 0;       // L
  int vocab = 0;        // v, 0 when unknown
  int tp = 1;           // t
  int pp = 1;
  int vp = 1;  // virtual stages (interleaved 1F1B): the first stage holds (1 + (p−1)/(p·v))×
  bool sequence_parallel = false;
  Recompute recompute = Recompute::kSelective;
};

// Korthikanti et al. 2022 (arXiv:2205.05198): activation bytes of one transformer layer.
Quantity activations_per_layer(const ActivationInputs& in);
// All layers a GPU holds at the peak of 1F1B (the first stage keeps pp micro-batches of L/pp
// layers: L layers' worth; × (1 + (p − 1)/(p·v)) interleaved, as Megatron-LM counts it) plus the
// output layer's logits, 4·s·b·h·(1 + v/h)/t.
Quantity activations_total(const ActivationInputs& in);

struct MemoryInputs {
  StatesInputs states;
  std::optional<ActivationInputs> activations;  // nullopt when the shape is unknown
  // Megatron-LM's own count (megatron_memory.h), when the shape is known: always computed and
  // shown; the states and activations of the plan with --convention megatron.
  std::optional<MegatronInputs> megatron;
  MemoryConvention convention = MemoryConvention::kPaper;
  double gpu_memory_bytes = 0;
  double headroom = 0.10;
};

struct MemoryEstimate {
  Quantity states;                         // in the chosen convention
  std::optional<Quantity> states_other;    // the other convention, where it is defined
  std::string convention_used;             // "paper", "deepspeed" or "megatron" (else paper)
  std::optional<MegatronMemory> megatron;  // Megatron-LM's estimate, where the shape is known
  // DeepSpeed's estimate before v0.14.3, where it differs from the current one (ZeRO-2).
  std::optional<Quantity> states_deepspeed_before_0_14_3;
  std::optional<Quantity> activations;
  Quantity buffers;  // ZeRO-3 gather buffer
  Quantity context;  // CUDA context, NCCL and allocator reserve
  Quantity total;
  Quantity usable;  // GPU memory less headroom
  bool fits = false;
  Quantity largest_params;  // the most parameters whose states fit beside the rest
};

MemoryEstimate estimate_memory(const MemoryInputs& in);

// Parameters of the largest single module, for ZeRO-3's gather buffer, as DeepSpeed counts them:
// max(v·h, 4·h²) with a shape; without one, P / L, or P itself (an upper bound).
double largest_layer_params(int hidden, int vocab, double params, int layers);

}  // namespace trainready
