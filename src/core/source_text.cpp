#include "core/source_text.h"

namespace trainready {

namespace {

// The last text this thread made a SourceText of, kept alive by one reference: readers build
// provenances of one file in a row, and each then shares the first one's buffer.
struct LastText {
  SourceText text;
};

}  // namespace

SourceText::SourceText(std::string_view s) {
  if (s.empty()) return;
  thread_local LastText last;
  if (last.text.rep_ != nullptr && std::string_view(last.text.rep_->text) == s) {
    rep_ = last.text.rep_;
    retain(rep_);
    return;
  }
  rep_ = new Rep{1, std::string(s)};
  last.text = *this;
}

const std::string& SourceText::empty_text() noexcept {
  static const std::string kEmpty;
  return kEmpty;
}

}  // namespace trainready
