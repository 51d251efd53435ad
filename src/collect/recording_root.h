#pragma once
// A Root that forwards to another and remembers every read, so `collect` writes exactly the
// files the probes read: a snapshot and a live run see the same bytes.
#include <map>
#include <string>

#include "core/root.h"

namespace trainready {

class RecordingRoot final : public Root {
 public:
  explicit RecordingRoot(const Root& inner) : inner_(inner) {}

  FileRead read_file(const std::string& path, std::size_t limit = kSmallFileLimit) const override;
  DirList list_dir(const std::string& path) const override;
  LinkRead read_link(const std::string& path) const override;
  std::string display(const std::string& path) const override { return inner_.display(path); }
  // Probes must behave as on the live node (NVML, IMDS, environment).
  bool is_live() const override { return inner_.is_live(); }

  const std::map<std::string, std::string>& files() const { return files_; }
  const std::map<std::string, std::string>& links() const { return links_; }
  const std::map<std::string, std::string>& dirs() const {
    return dirs_;
  }  // path -> "" (listed ok)
  const std::map<std::string, std::string>& unreadable() const {
    return unreadable_;
  }  // path -> error

 private:
  const Root& inner_;
  mutable std::map<std::string, std::string> files_;
  mutable std::map<std::string, std::string> links_;
  mutable std::map<std::string, std::string> dirs_;
  mutable std::map<std::string, std::string> unreadable_;
};

}  // namespace trainready
