#include "collect/recording_root.h"

namespace trainready {

FileRead RecordingRoot::read_file(const std::string& path, std::size_t limit) const {
  FileRead r = inner_.read_file(path, limit);
  if (r.ok())
    files_[path] = r.data;
  else if (r.status == ReadStatus::kUnreadable)
    unreadable_[path] = r.error;
  return r;
}

DirList RecordingRoot::list_dir(const std::string& path) const {
  DirList r = inner_.list_dir(path);
  if (r.ok()) dirs_[path] = "";
  return r;
}

LinkRead RecordingRoot::read_link(const std::string& path) const {
  LinkRead r = inner_.read_link(path);
  if (r.ok()) links_[path] = r.target;
  return r;
}

}  // namespace trainready
