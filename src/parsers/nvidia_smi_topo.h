#pragma once
// `nvidia-smi topo -m`: the connection matrix between GPUs and NICs, plus CPU/NUMA affinity.
#include <string>
#include <string_view>
#include <vector>

#include "facts/node_facts.h"

namespace trainready {

TopoMatrix parse_nvidia_smi_topo(std::string_view text, const std::string& source);

}  // namespace trainready
