#pragma once
// The plan's winning layout as the arguments of the launcher it was planned for, Megatron-LM's
// pretrain_gpt.py (megatron/training/arguments.py and the TransformerConfig / ModelParallelConfig
// / DistributedDataParallelConfig fields they are generated from, @d98e8a6). `plan --emit`
// writes them into the deployment (cloud-init: /etc/trainready/megatron-args).
#include <string>
#include <vector>

#include "plan/plan.h"

namespace trainready {

struct LaunchArgs {
  std::vector<std::string> args;   // "--tensor-model-parallel-size 4", one flag (and value) each
  std::vector<std::string> notes;  // what the arguments cannot say
};

LaunchArgs megatron_launch_args(const Plan& plan);

}  // namespace trainready
