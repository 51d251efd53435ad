#pragma once
// The texts that two different NCCL (or plugin) WARN messages begin with
// (data/nccl-kb/shared-prefixes.txt, written by tools/nccl_shared_prefixes.py from the message
// sites of NCCL's and the plugins' sources).
#include <string_view>

namespace trainready {

// True when `text` is the beginning of two different WARN messages: a copy cut there could be
// either, so no single message can be read from it.
bool nccl_messages_share_beginning(std::string_view text);

}  // namespace trainready
