#pragma once
// NCCL's own message text in a log that holds no NCCL record: an excerpt pasted without its
// "host:pid:tid [dev] NCCL WARN" head ("NET/IB : No device found."), an issue's title, a line a
// wrapper rewrote. Which text is NCCL's is the caller's predicate (the knowledge base's message
// matchers, written from NCCL's format strings: src/knowledge/nccl_kb_recognise.h); this reader
// only keeps the lines it accepts, as warnings with their file and line, and judges nothing.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "facts/nccl_run_facts.h"

namespace trainready {

// At most this many lines of each file are offered to the predicate: a pasted excerpt is short,
// and a long file with no NCCL record in its first lines is not an NCCL log.
inline constexpr std::uint64_t kUnmarkedLinesRead = 20'000;

// Adds each line of `paths` that `is_nccl_text` accepts to f.warnings (counted in nccl_lines and
// warning_lines), as the line reader adds a WARN whose head was lost. Directories and stdin
// ("-") are skipped: stdin cannot be read twice, and a directory is per-rank logs with heads.
// Throws InputError as LineReader does.
// With `beside_read`, the log was read already (a framework's error lines, no NCCL record): a
// line that holds a warning the line reader kept (its message, a "Last error:" follow-up) is
// not counted again, so only the bare lines it passed over are added.
void read_unmarked_nccl_lines(const std::vector<std::string>& paths,
                              const std::function<bool(std::string_view)>& is_nccl_text,
                              NcclRunFacts& f, bool beside_read = false);
// The same over text in memory, read as the file `name`.
void read_unmarked_nccl_text(std::string_view text, const std::string& name,
                             const std::function<bool(std::string_view)>& is_nccl_text,
                             NcclRunFacts& f);

}  // namespace trainready
