#pragma once
// NCCL's own message text in a log that holds no NCCL record: an excerpt pasted without its
// "host:pid:tid [dev] NCCL WARN" head ("NET/IB : No device found."), an issue's title, a line a
// wrapper rewrote, an error string of CUDA or the verbs library under it. Which text is NCCL's
// is the caller's reader (the knowledge base's matchers, written from NCCL's format strings and
// the other producers' sources: src/knowledge/nccl_kb_recognise.h); this reader only keeps the
// lines it accepts, with their file and line, and judges nothing: a line read as a WARN (or of
// either level) as a warning, a line only an INFO-level entry knows as a failure INFO line (the
// level the knowledge base then reads it at).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "facts/nccl_run_facts.h"

namespace trainready {

// At most this many lines of each file are offered to the predicate: a pasted excerpt is short,
// and a long file with no NCCL record in its first lines is not an NCCL log.
inline constexpr std::uint64_t kUnmarkedLinesRead = 20'000;
// At most this many distinct INFO lines are kept (as the line reader keeps failure INFO lines).
inline constexpr std::size_t kUnmarkedInfoKept = 32;

// What the caller's reader made of one line: the text to keep (in NCCL's own spelling), and
// whether it is an INFO line.
struct NcclUnmarkedText {
  std::string text;
  bool info = false;
};
using NcclUnmarkedReader = std::function<std::optional<NcclUnmarkedText>(std::string_view)>;

// Adds each line of `paths` that `read` accepts to f.warnings (counted in nccl_lines and
// warning_lines), as the line reader adds a WARN whose head was lost, or, when it is an INFO
// line, to f.failure_info (counted in nccl_lines). Directories and stdin
// ("-") are skipped: stdin cannot be read twice, and a directory is per-rank logs with heads.
// Throws InputError as LineReader does.
// With `beside_read`, the log was read already (a framework's error lines, no NCCL record): a
// line that holds a warning the line reader kept (its message, a "Last error:" follow-up) is
// not counted again, so only the bare lines it passed over are added.
void read_unmarked_nccl_lines(const std::vector<std::string>& paths, const NcclUnmarkedReader& read,
                              NcclRunFacts& f, bool beside_read = false);
// The same over text in memory, read as the file `name`.
void read_unmarked_nccl_text(std::string_view text, const std::string& name,
                             const NcclUnmarkedReader& read, NcclRunFacts& f);

// The first line of `paths` (their first kUnmarkedLinesRead lines each; stdin and directories
// skipped) worded as an error ("error", "failed", "refused", "timed out", "not found", ...),
// its control bytes escaped and its text clipped: what a refusal quotes of a log it cannot read.
// nullopt when none is; a file that cannot be read is passed over.
std::optional<LogLine> first_error_like_line(const std::vector<std::string>& paths);

// At most this many of the lines read_nccl_mentions finds are kept (all are counted).
inline constexpr std::size_t kMentionsKept = 4;

// The lines of `paths` (their first kUnmarkedLinesRead lines each; stdin and directories
// skipped) that name NCCL or nccl-tests without being a line this tool reads: "nccl" in any
// case (NCCL-ERROR, ncclShmOpen, NCCL_P2P_DISABLE, nccl==2.21.5, check_nccl_allreduce), a
// nccl-tests binary (src/Makefile's all_reduce_perf ... hypercube_perf), or a line that starts
// with a net transport's tag ("NET/IB : ", "NET/OFI "). Added to f.mentions (control bytes escaped,
// clipped) and counted in f.mention_lines: what a log that cannot be placed is said to hold.
// Judges nothing. A file that cannot be read is passed over.
void read_nccl_mentions(const std::vector<std::string>& paths, NcclRunFacts& f);

}  // namespace trainready
