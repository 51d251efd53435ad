#pragma once
// Parsers that read a message left to right: take a literal or a number off its front.
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/text.h"

namespace trainready {

// Removes `p` from the front of `s` when `s` starts with it.
inline bool consume_prefix(std::string_view& s, std::string_view p) {
  if (s.substr(0, p.size()) != p) return false;
  s.remove_prefix(p.size());
  return true;
}

// Consumes a leading decimal integer (optionally negative, at most 20 characters); nullopt, and
// `s` as it was, when there is none.
inline std::optional<std::int64_t> consume_int(std::string_view& s) {
  std::size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  const std::size_t digits = i;
  while (i < s.size() && i < 20 && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == digits) return std::nullopt;
  auto v = parse_int(s.substr(0, i));
  if (v) s.remove_prefix(i);
  return v;
}

}  // namespace trainready
