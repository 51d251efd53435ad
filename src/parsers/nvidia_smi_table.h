#pragma once
// `nvidia-smi` without arguments: the banner "NVIDIA-SMI 535.104.05  Driver Version: ...
// CUDA Version: 12.2" and one box per GPU (index, name, persistence mode, bus id, volatile
// uncorrectable ECC, memory, MIG mode), in the layouts before and after driver 530. Fields the
// driver could not read print "ERR!" and are kept as such; "Unable to determine the device
// handle" lines become lost GPUs.
#include <string>
#include <string_view>

#include "facts/node_facts.h"

namespace trainready {

GpuFacts parse_nvidia_smi_table(std::string_view text, const std::string& source);

// The banner line "| NVIDIA-SMI <version> ... Driver Version: ..." in the first lines, or
// one of the failure lines nvidia-smi prints instead ("Unable to determine the device handle
// for GPU ...", "NVIDIA-SMI has failed because it couldn't communicate ...").
bool looks_like_nvidia_smi_table(std::string_view text);

}  // namespace trainready
