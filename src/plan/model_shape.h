#pragma once
// The model as the planner's models see it: the job's shape, and, when --model names a preset
// whose shape the job kept, the architecture the preset publishes (grouped-query attention,
// SwiGLU, untied output layer, experts). Without a preset: multi-head attention, a 4h GELU MLP,
// tied embeddings, LayerNorm, dense (GPT-3's architecture, Megatron-LM's defaults).
#include "facts/job_spec.h"

namespace trainready {

struct ModelShape {
  double params = 0;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int vocab = 0;
  int seq = 0;
  int kv_heads = 0;              // 0: as heads
  int ffn_hidden = 0;            // 0: 4·hidden
  bool gated = false;            // SwiGLU
  bool untied = false;           // separate output layer
  bool rms_norm = false;         // RMSNorm (else LayerNorm)
  int experts = 0;               // 0: dense
  int top_k = 0;                 // experts per token
  double active_params = 0;      // parameters each token passes through (6·N FLOPs); 0: params
  const char* arch_source = "";  // where the architecture fields came from

  int kv() const { return kv_heads > 0 ? kv_heads : heads; }
  int ffn() const { return ffn_hidden > 0 ? ffn_hidden : 4 * hidden; }
  double active() const { return active_params > 0 ? active_params : params; }
};

ModelShape model_shape(const JobSpec& job);

}  // namespace trainready
