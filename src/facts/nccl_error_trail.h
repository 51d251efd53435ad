// NCCL's trace of an error return ("file:line -> code"), for the parser (the first error trail
// and its places; it tests every INFO line, so inline) and for the rules that read where a rank
// stopped.
#pragma once

#include <cctype>
#include <string_view>

namespace trainready {

namespace nccl_error_trail_detail {
// Where " -> " follows a trail line's place: after "file:line", or after the function NCCL 2.30.7
// prints between them (INFO_LOC: "misc/socket.cc:567 (socketProgress) -> 2"); npos when not.
inline std::size_t after_place(std::string_view m, std::size_t i) {
  if (m.substr(i).starts_with(" (")) {
    std::size_t j = i + 2;
    while (j < m.size() && (std::isalnum(static_cast<unsigned char>(m[j])) || m[j] == '_')) ++j;
    if (j == i + 2 || j >= m.size() || m[j] != ')') return std::string_view::npos;
    i = j + 1;
  }
  return m.substr(i).starts_with(" -> ") ? i : std::string_view::npos;
}
}  // namespace nccl_error_trail_detail

// "misc/socket.cc:567 -> 2", "bootstrap.cc:270 -> 2 [Async thread]", 2.30.7's
// "misc/socket.cc:567 (socketProgress) -> 2": the message of a trail line, file:line then the
// ncclResult_t (NCCLCHECK and its kin print it when a call fails, src/include/checks.h).
inline bool nccl_error_trail_line(std::string_view m) {
  const std::size_t colon = m.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 48) return false;
  const std::string_view file = m.substr(0, colon);
  if (!(file.size() > 3 &&
        (file.ends_with(".cc") || file.ends_with(".cu") || file.ends_with(".h"))))
    return false;
  std::size_t i = colon + 1;
  while (i < m.size() && m[i] >= '0' && m[i] <= '9') ++i;
  if (i == colon + 1) return false;
  i = nccl_error_trail_detail::after_place(m, i);
  return i != std::string_view::npos && i + 4 < m.size() && m[i + 4] >= '1' && m[i + 4] <= '9';
}

}  // namespace trainready
