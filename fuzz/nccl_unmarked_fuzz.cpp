// Fuzz target: NCCL message text without its head, recognised by the built-in knowledge base's
// matchers (src/parsers/nccl_unmarked.h, src/knowledge/nccl_kb_recognise.h).
#include "fuzz/fuzz_target.h"
#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_recognise.h"
#include "parsers/nccl_unmarked.h"

TRAINREADY_FUZZ_TARGET(nccl_unmarked, text) {
  const trainready::NcclKnowledgeBase& kb = trainready::NcclKnowledgeBase::builtin();
  trainready::NcclRunFacts f;
  trainready::read_unmarked_nccl_text(
      text, "fuzz", [&](std::string_view t) { return trainready::nccl_kb_recognises(kb, t); }, f);
  if (f.warnings.size() > 64 || f.warning_lines < f.warnings.size()) __builtin_trap();
}
