// Fuzz target: NCCL message text without its head, recognised by the built-in knowledge base's
// matchers (src/parsers/nccl_unmarked.h, src/knowledge/nccl_kb_recognise.h).
#include "fuzz/fuzz_target.h"
#include "knowledge/nccl_kb.h"
#include "knowledge/nccl_kb_recognise.h"
#include "parsers/nccl_unmarked.h"

TRAINREADY_FUZZ_TARGET(nccl_unmarked, text) {
  static const trainready::NcclTextRecogniser recognise(trainready::NcclKnowledgeBase::builtin());
  trainready::NcclRunFacts f;
  trainready::read_unmarked_nccl_text(
      text, "fuzz",
      [&](std::string_view t) -> std::optional<trainready::NcclUnmarkedText> {
        auto r = recognise.read(t);
        if (!r) return std::nullopt;
        if (r->text.empty() || !r->entry) __builtin_trap();
        return trainready::NcclUnmarkedText{std::move(r->text), r->info};
      },
      f);
  if (f.warnings.size() > 64 || f.warning_lines < f.warnings.size()) __builtin_trap();
  if (f.failure_info.size() > trainready::kUnmarkedInfoKept) __builtin_trap();
  if (f.nccl_lines < f.warning_lines + f.failure_info.size()) __builtin_trap();
}
