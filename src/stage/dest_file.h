#pragma once
// One file being written at DST: a part file in the stage's private parts directory (so a listing
// of DST never shows a half-written file; stage/safe_path.h: an unpredictable name created
// O_EXCL|O_NOFOLLOW), preallocated, written with O_DIRECT for the aligned part where the file
// system takes it and buffered for the unaligned tail, then renamed (renameat, no link followed
// below DST) to its final name with its mode and mtime already set (a reader never sees the final
// name with other contents or metadata).
#include <atomic>
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

// The directory of the last small file finalized, kept open for the next one of the same task (a
// task's files are mostly from one directory): one openat2 (stage/safe_path.h: no link followed)
// per directory instead of one per file.
class ParentDirs {
 public:
  // The directory that holds `rel` below DST (DestTree::parent_of), and its last component.
  // Throws DestError as parent_of does.
  int get(const DestTree& dst, const std::string& rel, std::string& leaf);

 private:
  std::string dir_;
  UniqueFd fd_;
};

// What a run has learnt of DST for unnamed files, shared by its workers: whether they can be
// made and linked at all, and whether linkat(AT_EMPTY_PATH) links them (it needs
// CAP_DAC_READ_SEARCH, or since Linux 6.10 the opener's credentials; else ENOENT, and the link
// goes through /proc/self/fd/N: tried once, not again for every file).
struct UnnamedFiles {
  std::atomic<bool> ok{true};
  std::atomic<bool> empty_path{true};
};

// A small file written whole as an unnamed file (O_TMPFILE) in its final directory, its mode and
// mtime set, then linked at its final name: the link is the commit, as the rename is for a part
// file, and nothing is created in the shared parts directory (no create there, no rename out of
// it; 16 workers contended for that directory's lock, and every cross-directory rename takes the
// file system's rename mutex). A kill before the link leaves nothing. Returns false, with nothing
// at DST, where this is not done: the file system has no O_TMPFILE (`unnamed.ok` is then cleared
// for the rest of the run), the unnamed file cannot be linked, a name is already there (a file or
// a link: the rename of a part file replaces it), or any write fails; the caller then writes a
// part file as for any file, which names the error. Throws DestError only from `dirs` (a link in
// the way, a directory that cannot be made).
bool write_whole_unnamed(const DestTree& dst, ParentDirs& dirs, const std::string& rel,
                         std::span<const std::byte> data, std::uint32_t mode, std::int64_t mtime_ns,
                         UnnamedFiles& unnamed);

// A small file's bytes at its final name with its mode and mtime: linked from an unnamed file
// (write_whole_unnamed), else through a new part file of file `id` (not preallocated) and a rename,
// which replaces what is at the final name. Throws DestError.
void write_small(PartsDir& parts, const DestTree& dst, ParentDirs& dirs, std::uint64_t id,
                 const std::string& rel, std::span<const std::byte> data, std::uint32_t mode,
                 std::int64_t mtime_ns, UnnamedFiles& unnamed);

// Tests switch unnamed files off to exercise part files for small files (file systems without
// O_TMPFILE).
void set_unnamed_files_allowed(bool allowed);

// Whether errno `err` from a write to DST ends the run (no space, quota, read-only, I/O error).
bool fatal_dest_errno(int err);

}  // namespace trainready::stage
