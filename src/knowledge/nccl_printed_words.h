#pragma once
// The words NCCL, its network plugins and libc print (data/nccl-kb/printed-words.txt, written by
// tools/nccl_printed_words.py from the message sites of their sources and glibc's strerror
// texts): runs of two or more letters of their fixed texts, lower case. A WARN a terminal cut in
// two is joined across the cut by them (parsers/nccl_warn_join.cpp): "suppo" / "rted" is one word
// cut, "completion" / "from" two words whose blank the copy dropped.
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/embedded.h"

namespace trainready {

// Whether `letters` (letters only, any case) is a word of those texts.
inline bool nccl_printed_word(std::string_view letters) {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> out;
    for (std::string_view line : embedded_data_lines(embedded_nccl_printed_words()))
      out.emplace_back(line);
    std::sort(out.begin(), out.end());
    return out;
  }();
  if (letters.size() < 2 || letters.size() > 64) return false;
  std::string w(letters);
  for (char& c : w)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return std::binary_search(words.begin(), words.end(), w);
}

}  // namespace trainready
