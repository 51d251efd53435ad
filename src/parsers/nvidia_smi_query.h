#pragma once
// `nvidia-smi -q` (--query): "==============NVSMI LOG==============", the driver and CUDA
// versions, then one indented "GPU 00000000:18:00.0" block per GPU. Read into GpuFacts: name,
// UUID, bus id, memory, persistence and MIG mode, ECC mode and volatile uncorrectable counts,
// retired pages and remapped rows, clocks event (throttle) reasons as NVML's bitmask, and every
// field the driver could not read ("Unknown Error", "ERR!").
#include <string>
#include <string_view>
#include <vector>

#include "facts/node_facts.h"

namespace trainready {

// Throws InputError when the text is neither an NVSMI log nor one of nvidia-smi's failure
// messages (those read as a driver that is not loaded, or as lost GPUs).
GpuFacts parse_nvidia_smi_query(std::string_view text, const std::string& source);

bool looks_like_nvidia_smi_query(std::string_view text);

// nvidia-smi's own failure lines, which both its forms print instead of (or above) the GPUs:
// "Unable to determine the device handle for GPU 0000:61:00.0: Unknown Error" (and "GPU is
// lost") as lost GPUs; "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA
// driver" as no driver. Returns true when it found any.
bool read_nvidia_smi_failures(std::string_view text, const std::string& source, GpuFacts& out);

}  // namespace trainready
