#pragma once
// Named model shapes for `plan --model`: the dimensions as their authors published them, with
// the citation. Attention heads are the query heads; grouped-query attention is noted but the
// activation formulas count full multi-head attention (an upper bound).
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
};

const std::vector<ModelPreset>& model_presets();
const ModelPreset* find_model_preset(std::string_view name);  // case-insensitive

}  // namespace trainready
