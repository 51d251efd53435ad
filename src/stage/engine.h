#pragma once
// The copy: enumerate -> manifest journal -> chunked copy hashed while written -> atomic
// finalize. The listing runs on the calling thread and feeds a bounded queue of tasks (a chunk
// of a big file, or a batch of small files) that worker threads read, hash and write while the
// listing goes on. Resume: the journal of an earlier run says which files are done and which
// chunks were written; those chunks are re-hashed from the part file, the rest copied.
#include <cstdint>
#include <functional>
#include <string>

#include "facts/stage_facts.h"
#include "stage/dest_file.h"
#include "stage/safe_path.h"
#include "stage/source.h"

namespace trainready::stage {

struct EngineOptions {
  std::string dst;
  std::string journal;            // --manifest; default: beside DST (stage/safe_path.h)
  std::string journal_suffix;     // after the default journal's name (--shard: ".rank-R-of-N")
  std::uint64_t max_bw = 0;       // bytes/s, 0 = unlimited
  int threads = 0;                // 0: the source's hint
  int max_open = 0;               // source files open at once, 0 = no cap beyond threads
  std::uint64_t chunk_bytes = 0;  // 0: the source's hint (a resumed journal keeps its own)
  bool progress = false;          // draw the progress line on stderr
  double nic_bytes_per_s = 0;     // the VM's front-end NIC, for "what limits"
  // Prefix of part file names: ranks of --shard share one parts directory.
  std::string part_tag;
};

// Files up to this size are copied whole, several to a task: per-file overhead (open, create,
// rename) dominates them, and one task per file would make the queue the bottleneck. Larger files
// are cut into chunks, each hashed and journaled on its own.
inline constexpr std::uint64_t kSmallFile = 1ull << 20;

// Whether a listed name can be written below DST: relative, no empty, "." or ".." component, not
// the stage directory itself.
bool safe_relative(const std::string& p);
// Why an entry `safe_relative` refused is not staged, for the report: a top-level
// .trainready-stage (an older version's journal inside what was then its DST) is named as such.
std::string unsafe_name_reason(const std::string& p);
// How `now` differs from `was` (size, mtime, ETag) in words; empty when the same version.
std::string version_change(const SourceEntry& was, const SourceEntry& now);
// The report's words for a file whose source changed since the manifest (`change` from
// version_change): the earlier copy is dropped and the file copied again whole.
std::string changed_since_manifest(const std::string& path, const std::string& change);
// A copy finished by an earlier run is still whole at `rel` below DST: a regular file (reached
// without following a link) with the entry's size and mtime (what finalize set), so it need not
// be copied again.
bool finished_copy_intact(const DestTree& dst, const std::string& rel, const SourceEntry& e);
// Why the copy stopped on a destination error, in the report's words (a full destination says
// that nothing partial is at a final name and how to resume).
std::string dest_abort_reason(const DestError& e);

// Whether parts in `parts_dir` take O_DIRECT writes (a trial file), and not on a memory file
// system; `write_mode` says which and why, for the outcome.
DirectWrite probe_direct_write(const std::string& dst, const std::string& parts_dir,
                               std::string& write_mode);

// The default journal of a destination: beside it (stage/safe_path.h, stage_layout).
std::string default_journal(const std::string& dst);
// Where versions before issue 29 kept the journal and part files, inside DST (still read by
// --verify, moved out by the next copy); now only the parts directory's fallback when the
// directory beside DST is on another file system. Never copied, never verified.
inline constexpr const char* kStageDir = ".trainready-stage";

// Copies everything `source` lists into o.dst. Problems with single files are in the facts (with
// their paths); a destination that fills up or a journal that cannot be written stops the run
// (facts.aborted). Throws InputError for a journal of another source or a bad DST.
StageFacts run_stage_copy(Source& source, const EngineOptions& o);

}  // namespace trainready::stage
