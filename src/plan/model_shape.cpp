#include "plan/model_shape.h"

#include "catalog/model_presets.h"

namespace trainready {

ModelShape model_shape(const JobSpec& job) {
  ModelShape m;
  m.params = job.params.value_or(0);
  m.layers = job.layers.value_or(0);
  m.hidden = job.hidden.value_or(0);
  m.heads = job.heads.value_or(0);
  m.vocab = job.vocab.value_or(0);
  m.seq = job.seq.value_or(2048);
  const ModelPreset* p = job.model.empty() ? nullptr : find_model_preset(job.model);
  // The preset's architecture only while its shape is the job's (a reshaped model is not it).
  if (p != nullptr && p->hidden == m.hidden && p->heads == m.heads && p->layers == m.layers) {
    m.kv_heads = p->kv_heads;
    m.ffn_hidden = p->ffn_hidden;
    m.gated = p->gated;
    m.untied = p->untied;
    m.rms_norm = p->rms_norm;
    m.experts = p->experts;
    m.top_k = p->top_k;
    if (p->params == m.params) m.active_params = p->active_params;
    m.arch_source = "the --model preset (src/catalog/model_presets.cpp)";
  }
  return m;
}

}  // namespace trainready
