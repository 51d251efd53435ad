#include "fleet/bandwidth/progress_line.h"

#include <unistd.h>

#include "core/text.h"

namespace trainready {

ProgressLine::ProgressLine(std::FILE* out)
    : out_(out), tty_(out != nullptr && ::isatty(::fileno(out)) == 1) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::note(const std::string& line) {
  if (!out_) return;
  finish();
  std::fprintf(out_, "%s\n", terminal_safe(line).c_str());
  std::fflush(out_);
}

void ProgressLine::update(const std::string& what, int done, int total) {
  if (!out_) return;
  const int pct = total > 0 ? done * 100 / total : 100;
  const std::string text = terminal_safe(what) + " " + std::to_string(done) + "/" +
                           std::to_string(total) + " (" + std::to_string(pct) + "%)";
  if (tty_) {
    // \x1b[K clears what a longer earlier line left behind.
    std::fprintf(out_, "\r%s\x1b[K", text.c_str());
    open_line_ = true;
  } else {
    const auto now = std::chrono::steady_clock::now();
    if (done != total && now - last_ < std::chrono::seconds(5) && done != 1) return;
    last_ = now;
    std::fprintf(out_, "%s\n", text.c_str());
  }
  std::fflush(out_);
}

void ProgressLine::finish() {
  if (!out_ || !open_line_) return;
  std::fprintf(out_, "\n");
  std::fflush(out_);
  open_line_ = false;
}

}  // namespace trainready
