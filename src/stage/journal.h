#pragma once
// The stage journal: the manifest and the progress of a copy in one append-only file of JSON
// Lines, made durable in batches, so a copy killed at any moment resumes where it stopped.
//
// Records (one JSON object per line, "t" says which; docs/stage.md has the full format):
//   {"t":"stage-journal","v":1,"source":S,"chunk_bytes":N}            first line, once
//   {"t":"file","id":I,"path":P,"size":N,"mtime_ns":T,"etag":E,"md5":M,"mode":O}
//                                          (+ "path_b64": the name's bytes when not UTF-8)
//   {"t":"listed","files":N,"bytes":B}                                 enumeration finished
//   {"t":"chunk","id":I,"i":K,"xxh3":H}                                chunk K of file I written
//   {"t":"done","id":I,"xxh3":[H0,H1,...],"md5":M}                     file I at its final name
// A later "file" record with the same path supersedes an earlier one (the source changed).
// Durability: a "chunk" or "done" record is appended only after the data it describes was
// written, and each batch is made durable after syncfs(2) on the destination, so a record never
// claims data that a crash could lose. A torn last line (no newline) is ignored and cut off.
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "stage/source.h"

namespace trainready::stage {

inline constexpr int kJournalVersion = 1;
// Bounds on a journal read back (docs/input-limits.md): a file at most this size (about 50 million
// files' records), and a line at most this long (a done record of about 3 million chunk hashes).
inline constexpr std::uint64_t kMaxJournalBytes = 16ull << 30;
inline constexpr std::size_t kMaxJournalLine = 64u << 20;

struct JournalFile {
  SourceEntry entry;
  std::map<std::uint64_t, std::string> chunks;  // chunk index -> XXH3-64 hex, as written
  bool done = false;
  std::vector<std::string> done_chunks;  // the "done" record's list
  std::string md5;                       // computed over the copy, when the source had one
};

// A journal as read back: the latest record of every path.
struct JournalState {
  bool exists = false;
  std::string source;
  std::uint64_t chunk_bytes = 0;
  bool listed = false;
  std::uint64_t next_id = 0;
  std::unordered_map<std::uint64_t, JournalFile> files;    // by id
  std::unordered_map<std::string, std::uint64_t> by_path;  // latest id
  std::uint64_t valid_bytes = 0;  // length of the file up to the last whole line
  const JournalFile* find(const std::string& path) const;
};

// Reads `path`; a missing file gives exists=false. Throws InputError naming the file and line
// on a line that is not a journal record (a torn last line is not an error), and for a path that
// is not a regular file (a device or FIFO is never read), one over kMaxJournalBytes, a line over
// kMaxJournalLine, or a file whose only line is torn and not a journal header (someone's one-line
// JSON: never cut).
JournalState read_journal(const std::string& path);

// Appends records from many threads; a committer thread makes them durable every interval:
// syncfs on the destination, write, fdatasync the journal.
class JournalWriter {
 public:
  // Opens (creating) `path`, cutting it to `valid_bytes` (a torn last line); `dst_fd` is synced
  // before every batch. Throws std::runtime_error naming the path.
  JournalWriter(const std::string& path, std::uint64_t valid_bytes, int dst_fd);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  void header(const std::string& source, std::uint64_t chunk_bytes);
  void file(std::uint64_t id, const SourceEntry& e);
  void listed(std::uint64_t files, std::uint64_t bytes);
  void chunk(std::uint64_t id, std::uint64_t index, const std::string& xxh3);
  void done(std::uint64_t id, const std::vector<std::string>& xxh3, const std::string& md5);
  // Makes everything appended so far durable; throws on a write error.
  void flush();
  // Seconds spent in syncfs/fdatasync, for the progress meter's "metadata" share.
  double sync_seconds() const;
  std::string error() const;  // the first write error of the committer, if any

 private:
  void append(std::string line);
  void commit_loop();
  void commit_pending(std::unique_lock<std::mutex>& lock);

  std::string path_;
  int fd_ = -1;
  int dst_fd_ = -1;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string pending_;
  std::uint64_t appended_ = 0, committed_ = 0;
  bool stop_ = false;
  bool committing_ = false;
  std::string error_;
  double sync_seconds_ = 0;
  std::thread thread_;
};

}  // namespace trainready::stage
