#include "catalog/model_presets.h"

#include "core/text.h"

namespace trainready {

const std::vector<ModelPreset>& model_presets() {
  // Global batches are those of NVIDIA NeMo's published performance runs on DGX-H100
  // (NVIDIA/NeMo docs/source/performance/performance_summary.md, 24.07), against which the
  // compute model is checked, or of the training script cited.
  static const std::vector<ModelPreset> presets = {
      {"llama2-7b", 6.74e9, 32, 4096, 32, 32, 32000, 4096, 128,
       "Touvron et al. 2023, Llama 2 (arXiv:2307.09288) Table 1; meta-llama/Llama-2-7b-hf "
       "config.json: intermediate_size 11008, tie_word_embeddings false, RMSNorm",
       11008, true, true, true, 0, 0, 6.74e9},
      {"llama3-8b", 8.03e9, 32, 4096, 32, 8, 128256, 8192, 128,
       "Meta Llama 3 model card and params.json (meta-llama/llama3); meta-llama/Meta-Llama-3-8B "
       "config.json: 32 layers, hidden 4096, 32 heads (8 KV), vocab 128256, intermediate_size "
       "14336, tie_word_embeddings false",
       14336, true, true, true, 0, 0, 8.03e9},
      {"llama3-70b", 70.6e9, 80, 8192, 64, 8, 128256, 8192, 128,
       "Meta Llama 3 model card and params.json (meta-llama/llama3); meta-llama/Meta-Llama-3-70B "
       "config.json: 80 layers, hidden 8192, 64 heads (8 KV), vocab 128256, intermediate_size "
       "28672, tie_word_embeddings false",
       28672, true, true, true, 0, 0, 70.6e9},
      {"gpt3-175b", 175e9, 96, 12288, 96, 96, 50257, 2048, 256,
       "Brown et al. 2020, Language Models are Few-Shot Learners (arXiv:2005.14165) Table 2.1: "
       "96 layers, d_model 12288, 96 heads, context 2048, d_ff = 4·d_model",
       49152, false, false, false, 0, 0, 175e9},
      {"mixtral-8x7b", 46.7e9, 32, 4096, 32, 8, 32000, 4096, 256,
       "Jiang et al. 2024, Mixtral of Experts (arXiv:2401.04088) Table 1: dim 4096, 32 layers, "
       "32 heads (8 KV), hidden_dim 14336, vocab 32000, 8 experts, top-2; 46.7B parameters, "
       "12.9B active (mistralai/Mixtral-8x7B-v0.1); seq 4096 and global batch 256 of "
       "NVIDIA/Megatron-LM examples/mixtral/train_mixtral_8x7b_distributed.sh",
       14336, true, true, true, 8, 2, 12.9e9},
  };
  return presets;
}

const ModelPreset* find_model_preset(std::string_view name) {
  for (const ModelPreset& p : model_presets()) {
    if (iequals(p.name, name)) return &p;
  }
  return nullptr;
}

}  // namespace trainready
