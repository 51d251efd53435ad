#pragma once
// What `trainready stage` was asked to do, as parsed from the command line.
#include <cstdint>
#include <string>

#include "stage/source.h"

namespace trainready::stage {

struct StageOptions {
  std::string src;            // a path or a Blob URL
  std::string dst;            // a local directory (created)
  SourceOptions source;       // --blob-endpoint
  std::string manifest;       // --manifest (default DST/.trainready-stage/manifest.jsonl)
  std::uint64_t max_bw = 0;   // --max-bw, bytes per second, 0 = unlimited
  int max_open = 0;           // --max-open: files open at once (readers), 0 = the source's hint
  int threads = 0;            // --threads: copy workers, 0 = automatic
  std::uint64_t chunk_bytes = 0;  // --chunk-size, 0 = the source's hint
  std::string progress = "auto";  // --progress auto|always|never
  bool hsm_restore = false;
  bool shard = false;
  std::string sku;  // --sku: the VM size, for the NIC ceiling
};

}  // namespace trainready::stage
