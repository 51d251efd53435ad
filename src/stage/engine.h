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
#include "stage/source.h"

namespace trainready::stage {

struct EngineOptions {
  std::string dst;
  std::string journal;            // default DST/.trainready-stage/journal.jsonl
  std::uint64_t max_bw = 0;       // bytes/s, 0 = unlimited
  int threads = 0;                // 0: the source's hint
  int max_open = 0;               // source files open at once, 0 = no cap beyond threads
  std::uint64_t chunk_bytes = 0;  // 0: the source's hint (a resumed journal keeps its own)
  bool progress = false;          // draw the progress line on stderr
  double nic_bytes_per_s = 0;     // the VM's front-end NIC, for "what limits"
  // Prefix of part file names: ranks of --shard share DST/.trainready-stage/parts.
  std::string part_tag;
};

// The default journal of a destination.
std::string default_journal(const std::string& dst);
// The directory holding the journal and part files; never copied, never verified.
inline constexpr const char* kStageDir = ".trainready-stage";

// Copies everything `source` lists into o.dst. Problems with single files are in the facts (with
// their paths); a destination that fills up or a journal that cannot be written stops the run
// (facts.aborted). Throws InputError for a journal of another source or a bad DST.
StageFacts run_stage_copy(Source& source, const EngineOptions& o);

}  // namespace trainready::stage
