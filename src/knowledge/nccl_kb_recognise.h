#pragma once
// Is this text a message NCCL prints? Asked of the lines of a log that holds no NCCL record (a
// pasted excerpt without its "NCCL WARN" head, an issue's title): true when a message entry of
// the knowledge base, written from NCCL's own format strings, matches it. Trail lines ("... ->
// 2"), CUDA / libc passthrough strings and INFO-only messages do not count: other programs print
// those too, so they do not show that NCCL wrote the line.
#include <string_view>

namespace trainready {

class NcclKnowledgeBase;

bool nccl_kb_recognises(const NcclKnowledgeBase& kb, std::string_view text);

}  // namespace trainready
