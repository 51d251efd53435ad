#pragma once
// --hsm-restore DIR: on Lustre with HSM (Azure Managed Lustre imports a Blob container by names
// only; a file's contents come from Blob on its first read), ask for every released file's
// contents ahead of the run: `lfs hsm_state` in batches to find the released ones, then one
// batch of `lfs hsm_restore` at a time (Microsoft's Managed Lustre guidance: batches of
// 1,000-5,000, each waited for, so the MDS queue is never flooded): the batch is polled with
// `lfs hsm_state` until none of it is released, or --hsm-timeout passes (then no further batch
// is issued). Programs run through the command runner (bounded time and output).
#include <functional>
#include <string>
#include <vector>

#include "facts/stage_facts.h"

namespace trainready::stage {

struct HsmOptions {
  std::string dir;
  std::size_t batch = 1000;
  double poll_seconds = 5;
  double timeout_seconds = 3600;  // per batch, from its hsm_restore
  int command_timeout_ms = 120000;
  // One line per finished batch (progress); may be empty.
  std::function<void(const std::string&)> on_batch;
};

// One parsed line of `lfs hsm_state`: "PATH: (0x0000000d) released exists archived, archive_id:1".
struct HsmState {
  std::string path;
  bool released = false;
};
// Lines that do not look like that are skipped (lfs prints errors for files it cannot query on
// stderr, which the runner drops).
std::vector<HsmState> parse_hsm_state(const std::string& output);

// Throws InputError when `lfs` is not on PATH or DIR is not on Lustre (`lfs getname DIR` fails).
StageFacts run_hsm_restore(const HsmOptions& o);

}  // namespace trainready::stage
