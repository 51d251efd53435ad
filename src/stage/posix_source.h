#pragma once
// A mounted directory tree as a stage source (blobfuse2, NFS, Azure NetApp Files, Lustre, local).
// Regular files are copied. A symbolic link is followed only with --follow-symlinks (then what it
// points to is copied under the link's name, wherever it points, with loops refused); without it,
// and for devices, FIFOs and sockets, the listing names each entry through on_problem
// (SourceError kSymlink / kSpecial) so the outcome says it was not staged.
#include <memory>
#include <string>

#include "stage/source.h"

namespace trainready::stage {

struct PosixOptions {
  bool follow_symlinks = false;
  // Never entered (the destination), compared by device and inode when the listing starts.
  std::string never_enter;
};

class PosixSource : public Source {
 public:
  // Throws SourceError (kNotFound, kPermission, kIo) when `root` cannot be opened as a directory.
  explicit PosixSource(std::string root, PosixOptions options = {});
  ~PosixSource() override;
  // SRC's real path (symlinks and `..` resolved), so the journal names the directory, not how it
  // was typed: `src` typed from two working directories is two sources, `src/` and `$PWD/src` one.
  std::string describe() const override { return real_.empty() ? root_ : real_; }
  SourceHints hints() const override;
  void enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                 const std::function<void(const SourceError&)>& on_problem) override;
  std::unique_ptr<SourceReader> open(const SourceEntry& entry) override;

 private:
  std::string root_;
  std::string real_;
  PosixOptions options_;
  int root_fd_ = -1;
};

// Whether a link's target is a file of a Hugging Face hub cache: `../` (one or more) then
// `blobs/` and the file's hash (40 hex digits, git's SHA-1, or 64, SHA-256). huggingface_hub
// lays a snapshot out as snapshots/REVISION/<file> -> ../../blobs/<hash> (relative links, one
// `../` more per subdirectory), so staging a snapshot without following links copies nothing.
bool hugging_face_blob_link(const std::string& target);

}  // namespace trainready::stage
