#pragma once
// `trainready stage --verify DST --manifest M`: every file the journal says is done is re-read
// from DST past the page cache (O_DIRECT where the file system takes it, else after
// POSIX_FADV_DONTNEED) and every chunk's XXH3 compared, and the MD5 where one was recorded.
#include <string>

#include "facts/stage_facts.h"

namespace trainready::stage {

struct VerifyOptions {
  std::string dst;
  std::string journal;  // default: DST's own
  int threads = 4;
  bool progress = false;
};

// Throws InputError for a journal that cannot be read.
StageFacts run_stage_verify(const VerifyOptions& o);

}  // namespace trainready::stage
