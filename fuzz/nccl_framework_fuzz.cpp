// Fuzz target: the training frameworks' lines (PyTorch, vLLM, DeepSpeed, Accelerate, ...).
#include <string>

#include "core/text.h"
#include "fuzz/fuzz_target.h"
#include "parsers/nccl_framework.h"

TRAINREADY_FUZZ_TARGET(nccl_framework, text) {
  trainready::FrameworkFacts f;
  std::uint64_t n = 0;
  for (std::string_view line : trainready::split_lines(text))
    trainready::read_framework_line(line, "fuzz", ++n, f);
  if (f.events.size() > 64) __builtin_trap();
}
