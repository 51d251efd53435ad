#include "emit/launch_args.h"

namespace trainready {

LaunchArgs megatron_launch_args(const Plan& plan) {
  LaunchArgs out;
  if (plan.candidates.empty()) return out;
  const Candidate& c = plan.candidates.front();
  const Layout& l = c.layout;
  auto arg = [&](const std::string& flag, const std::string& value = "") {
    out.args.push_back(value.empty() ? flag : flag + " " + value);
  };
  arg("--tensor-model-parallel-size", std::to_string(l.tp));
  arg("--pipeline-model-parallel-size", std::to_string(l.pp));
  if (l.vp > 1 && plan.job.layers && *plan.job.layers % (l.pp * l.vp) == 0)
    arg("--num-layers-per-virtual-pipeline-stage",
        std::to_string(*plan.job.layers / (l.pp * l.vp)));
  if (l.sequence_parallel && l.tp > 1) arg("--sequence-parallel");
  if (l.ep > 1) arg("--expert-model-parallel-size", std::to_string(l.ep));
  switch (l.recompute) {
    case Recompute::kNone:
      break;
    case Recompute::kSelective:
      arg("--recompute-granularity", "selective");
      break;
    case Recompute::kFull:
      // Every layer's input kept, the layer recomputed (Korthikanti et al. 2022's "full").
      arg("--recompute-granularity", "full");
      arg("--recompute-method", "uniform");
      arg("--recompute-num-layers", "1");
      break;
  }
  switch (c.zero) {
    case 0:
      break;
    case 1:
      arg("--use-distributed-optimizer");
      break;
    default:
      // Megatron-LM's own sharded data parallelism: optim_grads is ZeRO-2's sharding,
      // optim_grads_params ZeRO-3's (--data-parallel-sharding-strategy choices).
      arg("--use-megatron-fsdp");
      arg("--data-parallel-sharding-strategy", c.zero == 2 ? "optim_grads" : "optim_grads_params");
      break;
  }
  arg("--micro-batch-size", std::to_string(l.micro_batch));
  arg("--global-batch-size", std::to_string(c.global_batch));
  if (plan.job.seq) arg("--seq-length", std::to_string(*plan.job.seq));
  switch (plan.job.precision) {
    case Precision::kBf16Mixed:
      arg("--bf16");
      break;
    case Precision::kFp16Mixed:
      arg("--fp16");
      break;
    case Precision::kFp8Mixed:
      arg("--bf16");
      arg("--fp8-format", "hybrid");
      break;
    default:
      out.notes.push_back(std::string("precision ") + to_string(plan.job.precision) +
                          ": no Megatron-LM flag written (it trains in bf16 or fp16 with fp32 "
                          "main parameters)");
      break;
  }
  if (plan.job.offload != Offload::kNone)
    out.notes.push_back(
        "offload: Megatron-LM has no CPU offload of the optimizer states in "
        "these arguments; the plan assumed DeepSpeed's");
  return out;
}

}  // namespace trainready
