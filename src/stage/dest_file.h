#pragma once
// One file being written at DST: a part file in the stage's private parts directory (so a listing
// of DST never shows a half-written file; stage/safe_path.h: an unpredictable name created
// O_EXCL|O_NOFOLLOW), preallocated, written with O_DIRECT for the aligned part where the file
// system takes it and buffered for the unaligned tail, then renamed (renameat, no link followed
// below DST) to its final name with its mode and mtime already set (a reader never sees the final
// name with other contents or metadata).
#include <cstdint>
#include <span>
#include <string>

#include "stage/safe_path.h"

namespace trainready::stage {

// An error writing DST. `fatal` for the whole run (no space, quota, read-only file system, I/O
// error): nothing more can be written.
struct DestError {
  std::string message;
  bool fatal = false;
  int err = 0;
};

struct DirectWrite {
  bool enabled = false;
  std::uint32_t alignment = 4096;  // offsets, lengths and buffer addresses
};

class DestFile {
 public:
  // Opens the part file of file `id` for `size` bytes: when `keep`, the one an earlier run left
  // (kept() says whether there was one), else a new one; preallocated unless told not to (small
  // files: one write allocates as well). Throws DestError.
  DestFile(PartsDir& parts, std::uint64_t id, std::uint64_t size, bool keep,
           const DirectWrite& direct, bool preallocate = true);
  ~DestFile();
  DestFile(const DestFile&) = delete;
  DestFile& operator=(const DestFile&) = delete;
  // Writes all of `data` at `offset`: O_DIRECT for the aligned prefix when enabled (the buffer
  // must then be aligned), buffered for the rest. Throws DestError.
  void write_at(std::uint64_t offset, std::span<const std::byte> data);
  // Reads back [offset, offset + out.size()) of the part file (a resumed chunk); false when short.
  bool read_at(std::uint64_t offset, std::span<std::byte> out);
  // Sets mode and mtime, closes, and renames onto `rel` below DST (its directories made there, no
  // link followed). Throws DestError.
  void finalize(const DestTree& dst, const std::string& rel, std::uint32_t mode,
                std::int64_t mtime_ns);
  // Closes and removes the part file (a changed source: its chunks are of another version).
  void discard();
  bool direct_used() const { return direct_fd_ >= 0; }
  // Whether an earlier run's part was opened (keep).
  bool kept() const { return kept_; }

 private:
  void close_all();
  PartsDir& parts_;
  std::string name_;
  std::string part_;  // for messages
  bool kept_ = false;
  std::uint64_t size_;
  int fd_ = -1;
  int direct_fd_ = -1;
  DirectWrite direct_;
};

// Whether errno `err` from a write to DST ends the run (no space, quota, read-only, I/O error).
bool fatal_dest_errno(int err);

}  // namespace trainready::stage
