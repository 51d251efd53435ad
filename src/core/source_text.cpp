#include "core/source_text.h"

#include <functional>

namespace trainready {

namespace {

// The texts this thread made a SourceText of lately, one per slot of a small table by hash, each
// kept alive by one reference: readers build provenances of one file in a row, and a template's
// resources repeat the same expressions ("[variables('image')]", a type, a size), so equal
// texts made near each other share one buffer.
constexpr std::size_t kSlots = 256;
struct RecentTexts {
  SourceText slot[kSlots];
};

}  // namespace

SourceText::Rep* SourceText::make(std::string_view s) {
  if (s.empty()) return nullptr;
  thread_local RecentTexts recent;
  SourceText& at = recent.slot[std::hash<std::string_view>{}(s) % kSlots];
  if (at.rep_ != nullptr && std::string_view(at.rep_->text) == s) {
    retain(at.rep_);
    return at.rep_;
  }
  Rep* r = new Rep{1, std::string(s)};
  retain(r);  // the one the slot holds
  release(at.rep_);
  at.rep_ = r;
  return r;
}

const std::string& SourceText::empty_text() noexcept {
  static const std::string kEmpty;
  return kEmpty;
}

}  // namespace trainready
