#include "plan/megatron_memory.h"

#include <algorithm>
#include <cmath>

namespace trainready {

const char* const kMegatronSource =
    "NVIDIA/Megatron-LM megatron/training/theoretical_memory_usage.py @d98e8a6 (main after "
    "core_v0.15.0rc7, 2026-08-22): compute_weight_and_optimizer_memory, "
    "compute_activation_memory; bytes per parameter: docs/user-guide/features/dist_optimizer.md";

namespace {

constexpr const char* kKorthikanti =
    "Korthikanti et al. 2022 (arXiv:2205.05198) Table 2: full recomputation keeps 2·s·b·h per "
    "layer (/t with sequence parallelism); Megatron's estimator does not model it";

}  // namespace

int megatron_padded_vocab(int vocab, int tp) {
  // megatron/training/tokenizer: _vocab_size_with_padding, make-vocab-size-divisible-by 128.
  const int multiple = 128 * std::max(1, tp);
  return vocab <= 0 ? 0 : (vocab + multiple - 1) / multiple * multiple;
}

MegatronMemory megatron_memory(const MegatronInputs& in) {
  const ModelShape& m = in.model;
  const double h = m.hidden;
  const double a = std::max(1, m.heads);
  const double kv = m.kv();
  const double ffn = m.ffn();
  const double layers = m.layers;
  const double tp = std::max(1, in.tp);
  const double pp = std::max(1, in.pp);
  const double vp = std::max(1, in.vp);
  const double dp = std::max(1, in.dp);
  const double ep = std::max(1, in.ep);
  const double v = megatron_padded_vocab(m.vocab, in.tp);
  const double gated = m.gated ? 1.5 : 1.0;
  const double norm = m.rms_norm ? 1 : 2;
  const bool moe = m.experts > 0;
  const double experts = moe ? m.experts : 1;

  // Parameters (compute_weight_and_optimizer_memory; query projection = hidden).
  const double attention = 2 * h * h * (1 + kv / a);
  const double dense_mlp = 2 * h * ffn * gated;
  const double routed = moe ? 2 * h * ffn * experts * gated : 0;
  const double layernorm = 2 * h * norm;
  const double router = moe ? h * experts : 0;
  const double embedding = h * v;
  const double dense_layers = moe ? 0 : layers;  // moe_layer_freq 1: every layer is MoE
  const double moe_layers = moe ? layers : 0;
  const double final_norm = norm * h;
  const double tp_block = (attention + dense_mlp) * dense_layers + attention * moe_layers;
  const double replicated =
      layernorm * dense_layers + (layernorm + router) * moe_layers + final_norm;
  const double expert_block = routed * moe_layers;
  const double embeddings = m.untied ? 2 * embedding : embedding;
  const double total_params = tp_block + replicated + expert_block + embeddings;
  // The most loaded shard: 1/pp of the layers, the embedding (and the output layer when
  // pp = 1 and untied).
  double tp_shard = (tp_block / pp + embedding) / tp;
  if (m.untied && in.pp == 1) tp_shard += embedding / tp;
  const double replicated_shard = replicated / pp;
  // Expert tensor parallelism is Megatron's default, the tensor-parallel size.
  const double expert_shard = expert_block / pp / (tp * ep);
  const double on_shard = tp_shard + replicated_shard + expert_shard;
  const double world = dp * tp * pp;
  const double expert_dp = std::max(1.0, std::floor(world / (tp * ep * pp)));
  auto bytes_per_param = [&](double d) { return in.distributed_optimizer ? 6 + 12 / d : 18.0; };
  const double weights = (tp_shard + replicated_shard) * bytes_per_param(dp) +
                         expert_shard * bytes_per_param(expert_dp);

  MegatronMemory out;
  out.params_total = quantity(total_params, "",
                              "L·(2h²(1 + g/a) + 2·h·f·k·E + 2·h·n + h·E) + n·h + (1 or 2)·v·h; "
                              "k = 3/2 with SwiGLU, E experts (1 dense), n = 1 RMSNorm / 2 "
                              "LayerNorm, 2·v·h untied",
                              kMegatronSource);
  out.params_total.in("L", layers).in("h", h).in("a", a).in("g", kv).in("f", ffn);
  out.params_total.in("k", gated).in("E", experts).in("n", norm).in("v", v);
  out.params_on_shard = quantity(
      on_shard, "",
      "(L/pp·(2h²(1 + g/a) + dense MLP) + v·h)/t + replicated norms/pp + experts/(pp·t·ep)",
      kMegatronSource);
  out.params_on_shard.in("tp", tp).in("pp", pp).in("ep", ep);
  out.weight_and_optimizer = quantity(
      weights, "B",
      in.distributed_optimizer
          ? "params_on_shard × (6 + 12/d); experts × (6 + 12/d_expert), d_expert = world/(t·ep·pp)"
          : "params_on_shard × 18 (bf16 params, fp32 main grads, fp32 main params and Adam)",
      kMegatronSource);
  out.weight_and_optimizer.in("params_on_shard", on_shard).in("d", dp);
  out.weight_and_optimizer.in("d_expert", expert_dp);
  out.weight_and_optimizer.in("distributed_optimizer", in.distributed_optimizer ? 1 : 0);

  // Activations of the first pipeline stage.
  const double s = m.seq;
  const double b = in.micro_batch;
  const double sbh = s * b * h;
  const bool with_sp = in.sequence_parallel && in.recompute == Recompute::kSelective;
  const bool full = in.recompute == Recompute::kFull;
  double per_layer = 0;
  std::string formula;
  std::string source = kMegatronSource;
  if (full) {
    per_layer = in.sequence_parallel ? 2 * sbh / tp : 2 * sbh;
    formula = in.sequence_parallel ? "L·2·s·b·h/t" : "L·2·s·b·h";
    source = std::string(kKorthikanti) + "; embedding terms and schedule: " + kMegatronSource;
  } else if (with_sp) {
    per_layer = sbh * (18 + 4 * ffn / h) / tp;
    formula = "L·s·b·h·(18 + 4·f/h)/t";
  } else {
    per_layer = sbh * (10 + 24 / tp);
    formula = "L·s·b·h·(10 + 24/t)";
  }
  double act = per_layer * layers;
  // Input to the embedding and its dropout, pp micro-batches in flight.
  const double embed = (8 * s * b * pp + sbh * pp) / (with_sp || full ? tp : 1);
  act += embed;
  formula += " + (8·s·b·p + s·b·h·p)" + std::string(with_sp || full ? "/t" : "");
  double factor = 1;
  if (in.vp > 1) {
    factor = 1 + (pp - 1) / (pp * vp);
    formula = "(" + formula + ")·(1 + (p − 1)/(p·v))";
  } else if (in.pp > 1) {
    factor = std::min(1.0, in.micro_batches / pp);
    formula = "(" + formula + ")·min(1, m/p)";
  }
  act *= factor;
  if (in.pp == 1) {
    if (with_sp || full) {
      act += sbh * 4 * (1 + v / h) / tp;
      formula += " + 4·s·b·h·(1 + v/h)/t";
    } else {
      act += (s * b * v / tp + sbh) * 2;
      formula += " + 2·(s·b·v/t + s·b·h)";
    }
  }
  if (!with_sp && !full) {
    act *= 1.05;
    formula = "1.05·(" + formula + ")";
  }
  out.activations = quantity(act, "B", formula, source);
  out.activations.in("s", s).in("b", b).in("h", h).in("f", ffn).in("L", layers).in("t", tp);
  out.activations.in("p", pp).in("v", vp).in("m", in.micro_batches).in("vocab", v);
  out.total = quantity(weights + act, "B", "weight_and_optimizer + activations", kMegatronSource);
  out.total.in("weight_and_optimizer", weights, "B").in("activations", act, "B");
  return out;
}

}  // namespace trainready
