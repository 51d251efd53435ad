#include "core/source_text.h"

namespace trainready {

namespace {

// The last text this thread made a SourceText of, kept alive by one reference: readers build
// provenances of one file in a row, and each then shares the first one's buffer.
struct LastText {
  SourceText text;
};

}  // namespace

SourceText::Rep* SourceText::make(std::string_view s) {
  if (s.empty()) return nullptr;
  thread_local LastText last;
  if (last.text.rep_ != nullptr && std::string_view(last.text.rep_->text) == s) {
    retain(last.text.rep_);
    return last.text.rep_;
  }
  Rep* r = new Rep{1, std::string(s)};
  retain(r);  // the one `last` holds
  release(last.text.rep_);
  last.text.rep_ = r;
  return r;
}

const std::string& SourceText::empty_text() noexcept {
  static const std::string kEmpty;
  return kEmpty;
}

}  // namespace trainready
