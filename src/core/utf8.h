#pragma once
// UTF-8 handling for text that comes from inputs (logs, captures, templates): a quote is cut on a
// character boundary, and a malformed byte is replaced, never passed on to a reporter or fatal.
// terminal_safe (core/text.h) and printable_text (report/markup_escape.h) decode with the same
// function.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace trainready {

// Length of the well-formed UTF-8 sequence at s[i] (1 to 4) and its code point, or 0 when the
// bytes there are malformed (a stray continuation byte, overlong, surrogate, truncated, above
// U+10FFFF). A raw C1 byte such as 0x9b, which some terminals read as CSI, is malformed.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i, std::uint32_t* cp = nullptr);

// The longest prefix of `s` of at most `max_bytes` bytes that does not end inside a character.
std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes);

// The one way to shorten text from an input for a quote: at most `max_bytes` bytes cut on a
// character boundary, then "..." when something was cut.
std::string clip_text(std::string_view s, std::size_t max_bytes);

// `s` with every malformed byte replaced by U+FFFD.
std::string valid_utf8(std::string_view s);

}  // namespace trainready
