// Fuzz target: NCCL Inspector JSON lines.
#include "fuzz/fuzz_target.h"
#include "parsers/nccl_inspector.h"

TRAINREADY_FUZZ_TARGET(nccl_inspector, text) {
  std::vector<trainready::InspectorSeries> out;
  std::vector<std::string> notes;
  (void)trainready::looks_like_nccl_inspector(text);
  trainready::parse_nccl_inspector(text, "fuzz", out, notes);
}
