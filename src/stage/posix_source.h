#pragma once
// A mounted directory tree as a stage source (blobfuse2, NFS, Azure NetApp Files, Lustre, local).
// Only regular files are copied; symbolic links and special files are not followed and are
// listed in skipped() so the outcome names them.
#include <memory>
#include <string>
#include <vector>

#include "stage/source.h"

namespace trainready::stage {

class PosixSource : public Source {
 public:
  // Throws SourceError (kNotFound, kPermission, kIo) when `root` cannot be opened as a directory.
  explicit PosixSource(std::string root);
  ~PosixSource() override;
  std::string describe() const override { return root_; }
  SourceHints hints() const override;
  void enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                 const std::function<void(const SourceError&)>& on_problem) override;
  std::unique_ptr<SourceReader> open(const SourceEntry& entry) override;
  // Entries that are not regular files (symbolic links, sockets, devices), relative paths: not
  // copied, reported in the outcome. Filled by enumerate().
  const std::vector<std::string>& skipped() const { return skipped_; }

 private:
  std::string root_;
  int root_fd_ = -1;
  std::vector<std::string> skipped_;
};

}  // namespace trainready::stage
