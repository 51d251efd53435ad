#pragma once
// One file being written at DST: a part file under DST/.trainready-stage/parts/ (so a listing of
// DST never shows a half-written file), preallocated, written with O_DIRECT for the aligned part
// where the file system takes it and buffered for the unaligned tail, then renamed to its final
// name with its mode and mtime already set (a reader never sees the final name with other
// contents or metadata).
#include <cstdint>
#include <span>
#include <string>

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
  // Opens `part` (keeping what it holds when `keep`, else empty) for a file of `size` bytes,
  // preallocated unless told not to (small files: one write allocates as well).
  // Throws DestError.
  DestFile(std::string part, std::uint64_t size, bool keep, const DirectWrite& direct,
           bool preallocate = true);
  ~DestFile();
  DestFile(const DestFile&) = delete;
  DestFile& operator=(const DestFile&) = delete;
  // Writes all of `data` at `offset`: O_DIRECT for the aligned prefix when enabled (the buffer
  // must then be aligned), buffered for the rest. Throws DestError.
  void write_at(std::uint64_t offset, std::span<const std::byte> data);
  // Reads back [offset, offset + out.size()) of the part file (a resumed chunk); false when short.
  bool read_at(std::uint64_t offset, std::span<std::byte> out);
  // Sets mode and mtime, closes, and renames onto `final_path` (creating its directories under
  // `dst_root`). Throws DestError.
  void finalize(const std::string& final_path, std::uint32_t mode, std::int64_t mtime_ns);
  // Closes and removes the part file (a changed source: its chunks are of another version).
  void discard();
  bool direct_used() const { return direct_fd_ >= 0; }

 private:
  void close_all();
  std::string part_;
  std::uint64_t size_;
  int fd_ = -1;
  int direct_fd_ = -1;
  DirectWrite direct_;
};

// Creates the directories of `relative` (a/b/c.bin -> a, a/b) under `root`. Throws DestError.
void make_parent_dirs(const std::string& root, const std::string& relative);

// Whether errno `err` from a write to DST ends the run (no space, quota, read-only, I/O error).
bool fatal_dest_errno(int err);

}  // namespace trainready::stage
