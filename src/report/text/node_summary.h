#pragma once
// "What this machine is", in a few labelled lines, for the text report.
#include <string>
#include <utility>
#include <vector>

#include "facts/node_facts.h"
#include "rules/run_options.h"

namespace trainready {

// (label, text) pairs: size, cloud, GPUs, InfiniBand, OFED, GPUDirect, NCCL, scratch.
std::vector<std::pair<std::string, std::string>> summarize_node(const NodeFacts& n,
                                                                const RunOptions& options);

}  // namespace trainready
