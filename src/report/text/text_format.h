#pragma once
// Text layout shared by the text reporters: colour on a TTY, word wrap, one finding's block.
#include <string>

#include "core/finding.h"

namespace trainready {

inline constexpr std::size_t kTextWidth = 100;

struct Palette {
  bool on;
  std::string wrap(const std::string& s, const char* code) const {
    return on ? std::string("\x1b[") + code + "m" + s + "\x1b[0m" : s;
  }
};

const char* severity_color(Severity s);
std::string upper_severity(Severity s);
// Word-wraps `text` to kTextWidth with `indent` spaces before every continuation line.
std::string wrap_text(const std::string& text, std::size_t first_col, std::size_t indent);
// SEVERITY rule-id  <suffix>, message, evidence, cause, fix, "more" line.
std::string render_finding(const Finding& f, const Palette& p, const std::string& suffix);

}  // namespace trainready
