#include "knowledge/nccl_kb_recognise.h"

#include <regex>
#include <string>

#include "knowledge/nccl_kb.h"

namespace trainready {

namespace {

// A matcher whose required literal is shorter than this says too little to tell NCCL's text from
// another program's ("failed", "error"): such entries read NCCL-marked lines only.
constexpr std::size_t kMinLiteral = 12;

}  // namespace

bool nccl_kb_recognises(const NcclKnowledgeBase& kb, std::string_view text) {
  for (const NcclKbEntry& e : kb.entries()) {
    if (e.kind != NcclKbKind::kMessage || e.level == NcclKbLevel::kInfo) continue;
    if (e.literal.size() < kMinLiteral || text.find(e.literal) == std::string_view::npos) continue;
    if (std::regex_search(text.begin(), text.end(), e.match.re())) return true;
  }
  return false;
}

}  // namespace trainready
