#include "report/markup_escape.h"

#include <cstdint>

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

// One UTF-8 sequence at s[i]: its code point and length, or length 0 when malformed (overlong,
// surrogate, truncated, above U+10FFFF).
std::size_t decode_utf8(std::string_view s, std::size_t i, std::uint32_t* cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = 0;
  std::uint32_t v = 0;
  std::uint32_t min = 0;
  if (c < 0x80) {
    *cp = c;
    return 1;
  } else if ((c & 0xe0) == 0xc0) {
    n = 2, v = c & 0x1f, min = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3, v = c & 0x0f, min = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    v = (v << 6) | (b(i + k) & 0x3f);
  }
  if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
  *cp = v;
  return n;
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
    const std::size_t n = decode_utf8(s, i, &cp);
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
