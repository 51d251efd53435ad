#pragma once
// Where `trainready stage` reads from. One interface for a POSIX tree (any mounted path:
// blobfuse2, NFS, Azure NetApp Files, Lustre) and an Azure Blob container/prefix (ranged GETs
// pinned to the ETag). The copy engine (stage/engine.*) only ever talks to this interface, so a
// new kind of source adds a class and one line in open_source (stage/source_factory.cpp).
//
// Contract (stable: stage-blob implements it; a change is named in the commit message):
// - enumerate() streams entries as it finds them; the engine starts copying the first entries
//   while the listing continues, so enumerate() must not collect the whole listing first.
// - An entry is a version of a file: (size, mtime_ns, etag). open()/read_at() fail with
//   SourceError::Kind::kChanged when the file is no longer that version, and with kNotFound when
//   it is gone, always naming the path; the engine then names it and never mixes versions.
// - open() is cheap (no data transfer); a reader is used by one thread at a time, and the engine
//   opens one reader per copy task (a chunk of a big file, or a small file), many at once.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

namespace trainready::stage {

struct SourceEntry {
  // Relative to the source root, '/'-separated, never empty, no leading '/', no "." or ".."
  // component (the engine refuses such a name rather than write outside DST).
  std::string path;
  std::uint64_t size = 0;
  // Modification time in nanoseconds since the epoch (POSIX st_mtim; Blob Last-Modified, which
  // has one-second resolution). Restored on the destination; part of the version.
  std::int64_t mtime_ns = 0;
  // The source's version tag: the Blob ETag exactly as the service sent it (quotes included);
  // empty for POSIX, where (size, mtime_ns) is the version.
  std::string etag;
  // The content MD5 the source holds, 32 lowercase hex digits (Blob Content-MD5 decoded from
  // base64); empty when the source has none. The engine computes MD5 while writing only then.
  std::string content_md5;
  // Permission bits to give the destination file (POSIX st_mode & 07777; Blob: 0644).
  std::uint32_t mode = 0644;
};

class SourceError : public std::runtime_error {
 public:
  enum class Kind {
    kNotFound,    // vanished since it was listed
    kChanged,     // size, mtime or ETag differ from the entry (HTTP 412 on If-Match)
    kPermission,  // EACCES/EPERM, HTTP 401/403
    kIo,          // anything else, after the source's own retries
    // Listing only (on_problem), never copied: the outcome names each.
    kSymlink,   // a symbolic link not followed (POSIX without --follow-symlinks)
    kSpecial,   // a device, FIFO or socket
    kTooLarge,  // a listed size above the largest the source can hold (stage/bounds.h)
  };
  SourceError(Kind kind, std::string path, const std::string& what)
      : std::runtime_error(what), kind_(kind), path_(std::move(path)) {}
  Kind kind() const { return kind_; }
  // The entry's relative path (empty for the source root itself).
  const std::string& path() const { return path_; }

 private:
  Kind kind_;
  std::string path_;
};

// Reads byte ranges of one entry, pinned to the version in the entry.
class SourceReader {
 public:
  virtual ~SourceReader() = default;
  // Fills all of buf from `offset` (offset + buf.size() <= entry.size). A short read means the
  // file changed: throws SourceError kChanged. Throws kNotFound / kPermission / kIo otherwise.
  virtual void read_at(std::uint64_t offset, std::span<std::byte> buf) = 0;
  // Fills the pieces one after another from `offset`, as read_at of their concatenation would.
  // A source where a request costs more than its bytes (Blob: one ranged GET) reads them in one
  // request; by default, one read_at per piece.
  virtual void read_pieces(std::uint64_t offset, std::span<const std::span<std::byte>> pieces) {
    for (const std::span<std::byte>& piece : pieces) {
      read_at(offset, piece);
      offset += piece.size();
    }
  }
  // After the last read of a task: throws kChanged when the file changed while it was read
  // (POSIX: fstat size/mtime again; Blob: nothing to do, every GET carried If-Match).
  virtual void confirm_unchanged() = 0;
};

// Tuning the source suggests; the engine may go lower (--max-open) but not higher.
struct SourceHints {
  std::size_t max_parallel_reads = 16;
  // A file larger than this is copied in chunks of this size by several readers at once.
  std::uint64_t chunk_bytes = 16ull << 20;
  bool remote = false;  // a network service (Blob): reads are limited by the NIC, not a disk
  // Consecutive chunks of one file the engine may read in one read_pieces call (1: one read per
  // chunk). Journal records, hashes and writes stay per chunk.
  std::size_t max_chunks_per_read = 1;
};

class Source {
 public:
  virtual ~Source() = default;
  // For messages and the manifest header: the path, or the URL without its query (never the SAS).
  virtual std::string describe() const = 0;
  virtual SourceHints hints() const = 0;
  // Lists every regular file under the root, calling on_entry as each is found (on the calling
  // thread); stops early when on_entry returns false. A problem with one entry or directory
  // (permission denied, vanished while listed) goes to on_problem and the listing goes on; a
  // failure of the whole listing (root missing, authentication) throws SourceError.
  virtual void enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                         const std::function<void(const SourceError&)>& on_problem) = 0;
  // A reader for `entry`; may throw SourceError (kNotFound, kPermission, kChanged).
  virtual std::unique_ptr<SourceReader> open(const SourceEntry& entry) = 0;
};

struct SourceOptions {
  std::string blob_endpoint;  // --blob-endpoint: another Blob endpoint (Azurite, sovereign clouds)
  // POSIX: --follow-symlinks copies what links point to, wherever they point (without it no link
  // is followed and each is named as not staged).
  bool follow_symlinks = false;
  // POSIX: a directory never entered while following links (the destination: a link to an
  // ancestor of DST would otherwise copy DST into itself). Looked up when the listing starts.
  std::string never_enter;
  std::string sas_file;  // --sas-file: the Blob SAS token, off the command line
};

// A POSIX path, or an https://ACCOUNT.blob.core.windows.net/CONTAINER/PREFIX?SAS URL (or any
// URL with --blob-endpoint). Throws InputError naming `spec` when it is neither.
std::unique_ptr<Source> open_source(const std::string& spec, const SourceOptions& options);

// Whether a journal's recorded source is `src`: the same description, or (a journal of a version
// that recorded SRC as typed) a path that resolves to the same directory from here.
bool journal_source_matches(const std::string& recorded, const Source& src);

// True when `spec` names a URL (scheme://), which only the Blob source takes.
bool is_url(const std::string& spec);

}  // namespace trainready::stage
