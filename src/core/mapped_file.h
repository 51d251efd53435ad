#pragma once
// A regular file mapped read-only (MAP_PRIVATE), for readers that scan a large file once
// without copying it into buffers (the NCCL log scanner). A file that shrinks while it is mapped
// (truncated by logrotate's copytruncate, rewritten by its writer) must not kill the process
// with SIGBUS: a process-wide SIGBUS handler, installed on the first mapping, puts a zero page in
// place of a page of a live mapping that the file no longer backs and marks the mapping, so the
// access goes on reading zeros and the reader asks shrank() and gives up with an error. A SIGBUS
// anywhere else goes to the handler that was there before (by default: the process dies).
// One inaccessible page follows the mapping, so a read past the file's end faults at once.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace trainready {

class MappedFile {
 public:
  // Maps the first `size` bytes (> 0) of the open regular file `fd`; nullptr when the mapping
  // fails (no address space, a file system without mmap, all slots of live mappings taken):
  // the caller reads the file instead.
  static std::unique_ptr<MappedFile> map(int fd, std::uint64_t size);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return data_; }
  std::size_t size() const { return size_; }
  // Done with the bytes before `offset`: their pages leave the process (the page cache keeps
  // them), so its resident memory stays flat however large the file (in steps of 2 MiB).
  void release_before(std::size_t offset);
  // About to read [offset, offset + len): its pages are mapped in one system call
  // (MADV_POPULATE_READ, Linux 5.14+) instead of a page fault every 16 pages, so a prefetch
  // across a page boundary finds the page mapped. Does nothing where the kernel cannot; a page
  // the file no longer backs is left to fault (and to the SIGBUS handler) when it is read.
  void populate(std::size_t offset, std::size_t len) const;
  // Whether a page of the mapping was found gone (the file shrank under it): from then on that
  // page reads as zeros, so what was read is not the file.
  bool shrank() const;

 private:
  MappedFile() = default;
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t span_ = 0;      // the whole reservation: the file's pages and the guard page
  std::size_t released_ = 0;  // pages before this offset are released
  int slot_ = -1;             // its entry in the handler's table of live mappings
};

}  // namespace trainready
