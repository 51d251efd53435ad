#pragma once
// The text of a NCCL record as the knowledge base takes it apart: shared by the kept lines
// (nccl_kb_lines.cpp) and their readings (nccl_kb_read.cpp).
#include <cstddef>
#include <string>
#include <string_view>

namespace trainready::nccl_kb_text {

// "misc/socket.cc:567 -> 2", "-> 2 [Async thread]", 2.30.7's "misc/socket.cc:567 (socketProgress)
// -> 2": a result trail (src/include/checks.h).
bool trail_shaped(std::string_view m);
// The message of a record's text: what follows "NCCL <LEVEL> ".
std::string_view after_level(std::string_view text, std::string_view level);
// Where the WARN tag of a line starts (npos when the line is not one of NCCL's WARNs).
std::size_t warn_tag(std::string_view text);
// The "file.cc:123" (or a plugin's "function:line") NCCL prints before its WARN tag; "" if none.
std::string warn_file(std::string_view text);
// NCCL's "host:pid:tid" prefix of a line, "" when it has none.
std::string thread_of(std::string_view text);

}  // namespace trainready::nccl_kb_text
