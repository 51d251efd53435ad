#pragma once
// The block scanner behind `trainready nccl` (see docs/performance.md): an input is read in
// blocks of whole lines; each block is classified at once (line ends and the " NCCL " tag found
// from bitmaps of the whole block, connection lines decoded at fixed offsets), then applied to
// the analyser in order. Connection lines behind a known record head cost a few stores; any
// other line goes through NcclLogAnalyzer::line, so the facts are those of the line reader.
// With threads > 1 a reader thread fills blocks and other threads classify them while the
// caller's thread applies them, in order: the state has one writer, so the result does not
// depend on the thread count.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/mapped_file.h"

namespace trainready {

// Where the bytes come from: an open regular file (with the line reader's limits: binary data,
// 8 GiB, 20 million lines, runaway lines, with its messages) or text in memory (no limits, as
// LineReader::read_text). Text in memory and a mapped file are read in place (blocks are views
// of them); a file that is not mapped is read into blocks with read(2).
class NcclScanSource {
 public:
  // `map_bytes` > 0: map that many bytes of the file (its size), read() if that fails.
  static NcclScanSource file(int fd, std::string name, std::uint64_t map_bytes = 0);
  static NcclScanSource memory(std::string_view text);
  // Up to `max` bytes into `out`; 0 at the end. Throws InputError when the read fails.
  std::size_t read(char* out, std::size_t max);
  const std::string& name() const { return name_; }
  bool checked() const { return fd_ >= 0; }
  // The whole input is in memory (text, or the mapped file): view() and view_size(), no read().
  bool in_place() const { return map_ || fd_ < 0; }
  const char* view() const { return map_ ? map_->data() : text_.data(); }
  std::size_t view_size() const { return map_ ? map_->size() : text_.size(); }
  // Done with the input before `p` (a pointer into view()): a mapping gives its pages back.
  void release_before(const char* p) {
    if (map_) map_->release_before(static_cast<std::size_t>(p - map_->data()));
  }
  // About to read [p, p + n) of view(): a mapping maps its pages at once (MappedFile::populate).
  void populate(const char* p, std::size_t n) const {
    if (map_) map_->populate(static_cast<std::size_t>(p - map_->data()), n);
  }
  // The mapped file shrank while it was read (a page of the mapping was found gone, or the
  // file is now shorter than the mapping: a cut inside the last page or in pages already read
  // raises no fault): what was read of it is not the file.
  bool shrank() const;

 private:
  int fd_ = -1;
  std::string name_;
  std::string_view text_;
  std::size_t at_ = 0;
  std::unique_ptr<MappedFile> map_;
};

// Threads worth using for an input of `bytes`: 1 up to 64 MiB, else the cores (at most 8);
// TRAINREADY_NCCL_THREADS overrides (1 = one thread).
unsigned nccl_scan_threads(std::uint64_t bytes);

}  // namespace trainready
