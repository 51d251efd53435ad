#include "report/markup_escape.h"

#include <cstdint>

#include "core/utf8.h"

namespace trainready {
namespace {

// Length of the terminal escape sequence starting at s[i] (s[i] == ESC): CSI (ESC [ params
// final), OSC (ESC ] ... BEL or ESC \), or ESC and one byte. A log captured from a terminal
// carries these; shown raw they are noise, passed to a terminal they recolour it.
std::size_t escape_sequence_length(std::string_view s, std::size_t i) {
  std::size_t j = i + 1;
  if (j >= s.size()) return 1;
  if (s[j] == '[') {
    ++j;
    while (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x20 &&
           static_cast<unsigned char>(s[j]) <= 0x3f)
      ++j;  // parameters and intermediates
    while (j < s.size() && static_cast<unsigned char>(s[j]) >= 0x20 &&
           static_cast<unsigned char>(s[j]) <= 0x2f)
      ++j;
    return (j < s.size() ? j + 1 : j) - i;  // the final byte
  }
  if (s[j] == ']') {
    for (++j; j < s.size(); ++j) {
      if (s[j] == '\a') return j + 1 - i;
      if (s[j] == '\x1b' && j + 1 < s.size() && s[j + 1] == '\\') return j + 2 - i;
    }
    return j - i;
  }
  return 2;
}

}  // namespace

std::string printable_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b) {
      i += escape_sequence_length(s, i);
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t n = utf8_sequence_length(s, i, &cp);
    if (n == 0) {
      out += "\xef\xbf\xbd";  // U+FFFD
      ++i;
      continue;
    }
    const bool control = (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0x7f ||
                         (cp >= 0x80 && cp <= 0x9f) || cp == 0xfffe || cp == 0xffff;
    if (!control) out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string escape_markup(std::string_view s) {
  const std::string clean = printable_text(s);
  std::string out;
  out.reserve(clean.size() + clean.size() / 8);
  for (char c : clean) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace trainready
