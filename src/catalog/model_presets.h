#pragma once
// Named model shapes for `plan --model`: the dimensions as their authors published them, with
// the citation. Attention heads are the query heads; kv_heads are grouped-query attention's
// key/value heads. The architecture fields (FFN width, gated MLP, untied output layer, norm,
// experts) are what Megatron-LM's theoretical_memory_usage.py counts parameters and activations
// with (src/plan/megatron_memory.cpp).
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

struct ModelPreset {
  std::string name;  // llama3-8b
  double params = 0;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int vocab = 0;
  int seq = 0;           // the sequence length the model was trained at
  int global_batch = 0;  // sequences per step in the cited training or benchmark configuration
  std::string source;
  int ffn_hidden = 0;        // the MLP's inner width (per expert for MoE)
  bool gated = false;        // SwiGLU: three projections of h × ffn, not two
  bool untied = false;       // the output layer has its own v × h weights
  bool rms_norm = false;     // RMSNorm (one vector per norm) or LayerNorm (two)
  int experts = 0;           // 0: dense
  int top_k = 0;             // experts each token is routed to
  double active_params = 0;  // per token, for MoE (6·N_active FLOPs); params when dense
};

const std::vector<ModelPreset>& model_presets();
const ModelPreset* find_model_preset(std::string_view name);  // case-insensitive

}  // namespace trainready
