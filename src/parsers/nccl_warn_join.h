#pragma once
// A WARN message continued on the next line (issue 30 item 3): pasted into an issue or a chat,
// captured from a terminal or through a tool that wraps long lines, a WARN arrives broken in
// two, the rest on a line of its own with no NCCL head ("... failed :" then "Connection
// refused"). NCCL itself prints one WARN over three lines: the NVLS bind failure
// (transport/nvls.cc, 2.27+: "...CUDA error 401 '...'.\nThis is usually caused by ...\nDisable
// NVLS (NCCL_NVLS_ENABLE=0) ..."). The log reader joins such a line to the WARN it belongs to
// only where that is unambiguous; everything else stays a line of its own.
#include <cstddef>
#include <string_view>

namespace trainready {

enum class WarnJoin {
  kNo,     // a line of its own
  kSpace,  // the WARN continues: join with one blank
  kTight,  // the WARN was cut inside a word or a bracket: join as is
};

// Whether `next` (a whole line, prefixes and colour already taken off) continues the WARN
// message `warn` (what follows "NCCL WARN ", joined so far), whose last physical line was
// `width` bytes long. A continuation is one of: a line NCCL itself prints as a WARN's
// continuation; an errno text (strerror) on its own line; the rest of a message that reads as
// cut (an open bracket or quote, a trailing ":" "," "=" ...); the rest of a word that a long
// line was cut inside. Never a line that reads as output of its own (a traceback, another
// logger's line, a "word:" start, NCCL's own lines).
// Whether `line` (no leading blank) starts as output of its own does: a traceback, another
// logger's line, a shell's, a headless NCCL line, a "word:" start, a bracket or a sign a
// program starts a line with. (warn_continuation also refuses a line with a logger's tag in it.)
bool starts_like_own_output(std::string_view line);
// starts_like_own_output without its "word:" start: a piece a word was cut in may begin like
// one ("... call f" / "ailed: No data available").
bool starts_with_output_mark(std::string_view line);

WarnJoin warn_continuation(std::string_view warn, std::size_t width, std::string_view next);

// Whether a line that ends in `before` and goes on in `after` was cut inside a word: the letters
// on both sides make a word of the texts NCCL, its network plugins and libc print
// (knowledge/nccl_printed_words.h) and the letters after the cut are none ("not suppo" / "rted",
// "call f" / "ailed: ...").
bool cut_inside_word(std::string_view before, std::string_view after);

}  // namespace trainready
