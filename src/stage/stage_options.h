#pragma once
// What `trainready stage` was asked to do, as parsed from the command line.
#include <cstdint>
#include <string>

#include "stage/source.h"

namespace trainready::stage {

struct StageOptions {
  std::string src;                // a path or a Blob URL
  std::string dst;                // a local directory (created)
  SourceOptions source;           // --blob-endpoint
  std::string manifest;           // --manifest (default beside DST, stage/safe_path.h)
  std::string max_bw;             // --max-bw, e.g. 200M (bytes per second), empty = unlimited
  int max_open = 0;               // --max-open: source files open at once, 0 = the source's hint
  int threads = 0;                // --threads: copy workers, 0 = the source's hint
  std::string chunk_size;         // --chunk-size, empty = the source's hint
  std::string progress = "auto";  // --progress auto|always|never
  std::string verify;             // --verify DST
  std::string hsm_restore;        // --hsm-restore DIR
  std::size_t hsm_batch = 1000;
  double hsm_poll = 5;
  double hsm_timeout = 3600;
  bool shard = false;
  bool replicate = false;     // --replicate: every rank the whole set at its own DST
  double peer_timeout = 300;  // --peer-timeout: seconds an MPI step may take
  bool then_feed = false;
  std::string profile = "unet3d-h100";
};

}  // namespace trainready::stage
