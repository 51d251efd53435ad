#pragma once
// The lines training frameworks print about their collectives (PyTorch ProcessGroupNCCL and
// c10d store, vLLM / SGLang pynccl, DeepSpeed, Accelerate, Lightning, Megatron-LM), read into
// FrameworkFacts. Each pattern quotes the framework source that prints it (nccl_framework.cpp).
// Transcribes; the rules under src/rules/run/framework_*.cpp judge.
#include <cstdint>
#include <string>
#include <string_view>

#include "facts/nccl_framework_facts.h"

namespace trainready {

// One line, launcher prefixes already removed. Returns true when it was a known framework line
// (and recorded it in `out`); `source` and `line_number` are its provenance.
bool read_framework_line(std::string_view line, const std::string& source,
                         std::uint64_t line_number, FrameworkFacts& out);

// "unhandled system error (run with ...)" -> "ncclSystemError": the ncclResult_t whose
// ncclGetErrorString() text starts `reason` (NCCL src/init.cc), "" when none does.
std::string_view nccl_result_from_reason(std::string_view reason);

}  // namespace trainready
