#pragma once
// The sizes `stage` accepts, and arithmetic on them that cannot wrap. A listed size comes from a
// stat(2) or a Blob listing's Content-Length (any 64-bit number a server sends); a chunk size
// from --chunk-size or a journal's header. Each is checked before anything is sized from it, so a
// bad one is a named failure or a clear exit 2, never an abort or a silent skip.
#include <cstdint>
#include <string>

namespace trainready::stage {

// The largest chunk: each copy worker holds one chunk in memory (--threads of them) and a Blob
// chunk is one ranged Get Blob. 4 GiB is above Azure's largest block (4,000 MiB, Microsoft Learn,
// "Scalability and performance targets for Blob storage") and below what 16 workers can hold on
// any GPU VM; larger chunks only cost memory and hashing granularity.
inline constexpr std::uint64_t kMaxChunkBytes = 4ull << 30;
// The smallest chunk (the engine rounds a smaller one up): files up to it are copied whole.
inline constexpr std::uint64_t kMinChunkBytes = 1ull << 20;
// The largest file staged: Azure's largest blob, a block blob of 50,000 blocks of 4,000 MiB
// (about 190.7 TiB; Microsoft Learn, "Scalability and performance targets for Blob storage").
// A larger listed size is a damaged listing or a sparse test file, not a dataset.
inline constexpr std::uint64_t kMaxEntryBytes = 50000ull * 4000ull * 1024ull * 1024ull;

// ceil(size / chunk) without overflow (chunk > 0); 0 for an empty file.
constexpr std::uint64_t chunks_of(std::uint64_t size, std::uint64_t chunk) {
  return size / chunk + (size % chunk != 0 ? 1 : 0);
}

// Why `chunk` cannot be a chunk size (empty when it can).
std::string chunk_size_problem(std::uint64_t chunk);

// Why a file of `size` bytes cannot be staged (empty when it can): above kMaxEntryBytes, or above
// `dst_capacity` (the destination file system's whole size; 0 when unknown). Names `path`.
std::string entry_size_problem(const std::string& path, std::uint64_t size,
                               std::uint64_t dst_capacity);

// The size in bytes of the file system holding `dir` (statvfs: f_blocks x f_frsize, saturating);
// 0 when it cannot be read. A file larger than this can never fit, whatever is freed.
std::uint64_t filesystem_capacity(const std::string& dir);

}  // namespace trainready::stage
