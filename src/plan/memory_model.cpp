#include "plan/memory_model.h"

#include <algorithm>
#include <cmath>

namespace trainready {
namespace {

constexpr const char* kZeroPaper = "Rajbhandari et al. 2019, ZeRO (arXiv:1910.02054) §3.1, §5";
constexpr const char* kDeepSpeed =
    "deepspeedai/DeepSpeed estimate_zero2_model_states_mem_needs (deepspeed/runtime/zero/"
    "stage_1_and_2.py) and estimate_zero3_model_states_mem_needs (stage3.py) @edaa722 (v0.19.6, "
    "read 2026-12-01); ZeRO-2 without offload is 2P + 18P/G since PR #5099 (first in v0.14.3), "
    "4P + 16P/G before it and in the docs' Memory Requirements table";
constexpr const char* kKorthikanti =
    "Korthikanti et al. 2022, Reducing Activation Recomputation (arXiv:2205.05198) Table 2";
// CUDA context, cuBLAS/NCCL workspaces and the allocator's reserve: 0.3-2 GiB measured
// (vram.asmirnov.xyz); the planner takes 1.5 GiB.
constexpr double kContextBytes = 1.5 * 1073741824.0;

}  // namespace

StateBytes state_bytes(Precision precision, Optimizer optimizer) {
  StateBytes b;
  const bool mixed = precision == Precision::kBf16Mixed || precision == Precision::kFp16Mixed ||
                     precision == Precision::kFp8Mixed;
  const bool fp32 = precision == Precision::kFp32;
  b.weights = fp32 ? 4 : 2;
  b.gradients = fp32 ? 4 : 2;
  const double master = mixed ? 4 : 0;  // fp32 copy of the weights, counted with the optimizer
  double moments = 0;
  switch (optimizer) {
    case Optimizer::kAdamW:
      moments = 8;
      break;  // fp32 momentum + variance
    case Optimizer::kAdam8Bit:
      moments = 2;
      break;  // bitsandbytes: 1 + 1
    case Optimizer::kSgdMomentum:
      moments = 4;
      break;  // fp32 momentum
  }
  b.optimizer = master + moments;
  return b;
}

double largest_layer_params(int hidden, int vocab, double params, int layers) {
  // DeepSpeed's largest_layer_params is the largest single module's own parameters
  // (estimate_zero3_model_states_mem_needs_all_live: max over model.modules() of
  // sum(p.numel() for p in m.parameters(recurse=False))): the embedding v·h, or one h × 4h
  // projection of the MLP, not a whole transformer block.
  if (hidden > 0) {
    const double h = hidden;
    return std::max(4.0 * h * h, static_cast<double>(vocab) * h);
  }
  return layers > 0 ? params / layers : params;
}

Quantity model_states_paper(const StatesInputs& in) {
  const double psi = in.params / (in.tp * in.pp);
  const double nd = std::max(1, in.dp);
  const StateBytes& b = in.bytes;
  double w = b.weights * psi;
  double g = b.gradients * psi;
  double k = b.optimizer * psi;
  std::string formula;
  switch (in.zero) {
    case 0:
      formula = "(b_w + b_g + K)·Ψ'";
      break;
    case 1:
      k /= nd;
      formula = "(b_w + b_g)·Ψ' + K·Ψ'/N_d";
      break;
    case 2:
      g /= nd;
      k /= nd;
      formula = "b_w·Ψ' + (b_g + K)·Ψ'/N_d";
      break;
    default:
      w /= nd;
      g /= nd;
      k /= nd;
      formula = "(b_w + b_g + K)·Ψ'/N_d";
      break;
  }
  if (in.offload != Offload::kNone) {
    k = 0;
    formula += ", optimizer states offloaded to CPU";
  }
  if (in.offload == Offload::kAll) {
    w = 0;
    formula += ", parameters offloaded to CPU";
  }
  Quantity q = quantity(w + g + k, "B", formula + "; Ψ' = Ψ/(tp·pp)", kZeroPaper);
  q.in("Ψ", in.params).in("tp", in.tp).in("pp", in.pp).in("N_d", nd);
  q.in("b_w", b.weights, "B").in("b_g", b.gradients, "B").in("K", b.optimizer, "B");
  return q;
}

std::optional<Quantity> model_states_deepspeed(const StatesInputs& in) {
  // The estimators assume mixed-precision Adam: 2-byte weights, 12 bytes of optimizer state.
  if (in.zero < 2 || in.bytes.weights != 2 || in.bytes.optimizer != 12) return std::nullopt;
  const double p = in.params / (in.tp * in.pp);
  const double g = std::max(1, in.dp);
  Quantity q;
  if (in.zero == 2) {
    // "2 = params_16bit, 18 = 2_grads_16bit + 4_grads_32bit + 4_params_32bit +
    // 8_optimizer_states_32bit" (stage_1_and_2.py, since PR #5099 / v0.14.3).
    q = in.offload == Offload::kNone
            ? quantity(2 * p + 18 * p / g, "B", "2P + 18P/G (DeepSpeed >= 0.14.3 estimator)",
                       kDeepSpeed)
            : quantity(2 * p, "B", "2P (optimizer offloaded)", kDeepSpeed);
  } else {
    const double l = 4 * in.largest_layer_params;
    switch (in.offload) {
      case Offload::kNone:
        q = quantity(l + 18 * p / g, "B", "4·Lmax + 18P/G", kDeepSpeed);
        break;
      case Offload::kOptimizer:
        q = quantity(l + 2 * p / g, "B", "4·Lmax + 2P/G (optimizer offloaded)", kDeepSpeed);
        break;
      case Offload::kAll:
        q = quantity(l, "B", "4·Lmax (parameters and optimizer offloaded)", kDeepSpeed);
        break;
    }
    q.in("Lmax", in.largest_layer_params);
  }
  q.in("P", p).in("G", g);
  return q;
}

Quantity activations_per_layer(const ActivationInputs& in) {
  const double s = in.seq;
  const double b = in.micro_batch;
  const double h = in.hidden;
  const double a = in.heads;
  const double t = in.tp;
  const double sbh = s * b * h;
  double bytes = 0;
  std::string formula;
  switch (in.recompute) {
    case Recompute::kNone:
      if (t == 1) {
        bytes = sbh * (34 + 5 * a * s / h);
        formula = "s·b·h·(34 + 5·a·s/h)";
      } else if (in.sequence_parallel) {
        bytes = sbh * (34 + 5 * a * s / h) / t;
        formula = "s·b·h·(34 + 5·a·s/h)/t";
      } else {
        bytes = sbh * (10 + 24 / t + 5 * a * s / (h * t));
        formula = "s·b·h·(10 + 24/t + 5·a·s/(h·t))";
      }
      break;
    case Recompute::kSelective:
      if (in.sequence_parallel || t == 1) {
        bytes = 34 * sbh / t;
        formula = "34·s·b·h/t (attention scores recomputed)";
      } else {
        bytes = sbh * (10 + 24 / t);
        formula = "s·b·h·(10 + 24/t) (attention scores recomputed)";
      }
      break;
    case Recompute::kFull:
      bytes = in.sequence_parallel ? 2 * sbh / t : 2 * sbh;
      formula =
          in.sequence_parallel ? "2·s·b·h/t (layer input only)" : "2·s·b·h (layer input only)";
      break;
  }
  Quantity q = quantity(bytes, "B", formula, kKorthikanti);
  q.in("s", s).in("b", b).in("h", h).in("a", a).in("t", t);
  return q;
}

Quantity activations_total(const ActivationInputs& in) {
  const Quantity layer = activations_per_layer(in);
  const double t = in.tp;
  const double sbh = static_cast<double>(in.seq) * in.micro_batch * in.hidden;
  const double output =
      in.vocab > 0 ? 4 * sbh * (1 + static_cast<double>(in.vocab) / in.hidden) / t : 0;
  // Interleaved 1F1B: the first stage holds (1 + (p − 1)/(p·v)) times the layers' worth of
  // 1F1B (Megatron-LM theoretical_memory_usage.py, interleaved_schedule_memory_penalty).
  const bool interleaved = in.vp > 1 && in.pp > 1;
  const double penalty =
      interleaved ? 1 + static_cast<double>(in.pp - 1) / (static_cast<double>(in.pp) * in.vp) : 1;
  Quantity q =
      quantity(layer.value * in.layers * penalty + output, "B",
               std::string(interleaved ? "L·per_layer·(1 + (pp − 1)/(pp·v))" : "L·per_layer") +
                   " + 4·s·b·h·(1 + v/h)/t; per_layer = " + layer.formula,
               interleaved ? std::string(kKorthikanti) + "; interleaving: " + kMegatronSource
                           : std::string(kKorthikanti));
  q.in("per_layer", layer.value, "B").in("L", in.layers).in("v", in.vocab).in("t", t);
  q.in("pp", in.pp);
  if (interleaved) q.in("virtual_stages", in.vp);
  return q;
}

std::optional<Quantity> model_states_deepspeed_before_0_14_3(const StatesInputs& in) {
  if (!model_states_deepspeed(in) || in.zero != 2 || in.offload != Offload::kNone)
    return std::nullopt;  // the same estimator in every version
  const double p = in.params / (in.tp * in.pp);
  const double g = std::max(1, in.dp);
  Quantity q =
      quantity(4 * p + 16 * p / g, "B", "4P + 16P/G (DeepSpeed < 0.14.3 estimator)", kDeepSpeed);
  q.in("P", p).in("G", g);
  return q;
}

MemoryEstimate estimate_memory(const MemoryInputs& in) {
  MemoryEstimate m;
  const Quantity paper = model_states_paper(in.states);
  const std::optional<Quantity> ds = model_states_deepspeed(in.states);
  if (in.megatron) m.megatron = megatron_memory(*in.megatron);
  // Megatron-LM has DDP and the distributed optimizer (ZeRO-1's sharding); its estimator
  // assumes bf16 mixed-precision Adam. Elsewhere the paper's count stands.
  const bool megatron = in.convention == MemoryConvention::kMegatron && m.megatron &&
                        in.states.zero <= 1 && in.states.offload == Offload::kNone &&
                        in.states.bytes.weights == 2 && in.states.bytes.optimizer == 12;
  if (megatron) {
    m.states = m.megatron->weight_and_optimizer;
    m.states_other = paper;
    m.convention_used = "megatron";
  } else if (in.convention == MemoryConvention::kDeepSpeed && ds) {
    m.states = *ds;
    m.states_other = paper;
    m.convention_used = "deepspeed";
  } else {
    m.states = paper;
    m.states_other = ds;
    m.convention_used = "paper";
  }
  m.states_deepspeed_before_0_14_3 = model_states_deepspeed_before_0_14_3(in.states);
  if (megatron)
    m.activations = m.megatron->activations;
  else if (in.activations)
    m.activations = activations_total(*in.activations);
  // DeepSpeed's ZeRO-3 estimate already holds the gather buffer; the paper's does not.
  const bool gather = in.states.zero == 3 && m.convention_used == "paper";
  m.buffers = quantity(gather ? 4 * in.states.largest_layer_params : 0, "B",
                       gather ? "4·Lmax (ZeRO-3: gathered weights and gradients of the largest "
                                "layer)"
                              : "none beyond the states",
                       kDeepSpeed);
  m.buffers.in("Lmax", in.states.largest_layer_params);
  m.context = quantity(kContextBytes, "B", "CUDA context, NCCL and library workspaces",
                       "planner assumption (0.3-2 GiB measured, vram.asmirnov.xyz)");
  const double act = m.activations ? m.activations->value : 0;
  m.total = quantity(m.states.value + act + m.buffers.value + m.context.value, "B",
                     "states + activations + buffers + context");
  m.total.in("states", m.states.value, "B").in("activations", act, "B");
  m.total.in("buffers", m.buffers.value, "B").in("context", m.context.value, "B");
  m.usable = quantity(in.gpu_memory_bytes * (1 - in.headroom), "B", "GPU memory × (1 − headroom)",
                      "planner assumption: ZeRO §3.2 reports OOM with 30% still free from "
                      "fragmentation");
  m.usable.in("gpu_memory", in.gpu_memory_bytes, "B").in("headroom", in.headroom);
  m.fits = m.total.value <= m.usable.value;
  const double per_param = in.states.params > 0 ? m.states.value / in.states.params : 0;
  const double room = m.usable.value - act - m.buffers.value - m.context.value;
  m.largest_params =
      quantity(per_param > 0 && room > 0 ? room / per_param : 0, "",
               "(usable − activations − buffers − context) / (states per parameter)");
  m.largest_params.in("usable", m.usable.value, "B").in("states_per_param", per_param, "B");
  return m;
}

}  // namespace trainready
