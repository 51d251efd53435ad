#include "probes/sysfs_attr.h"

#include "core/text.h"

namespace trainready {

Fact<std::string> read_text(const Root& root, const std::string& path, std::size_t limit) {
  Provenance where{root.display(path), 0};
  FileRead r = root.read_file(path, limit);
  if (r.status == ReadStatus::kMissing) return Fact<std::string>::missing(r.error, where);
  if (r.status == ReadStatus::kUnreadable) return Fact<std::string>::unreadable(r.error, where);
  if (!is_printable_text(r.data)) {
    return Fact<std::string>::unreadable("binary content where text was expected", where);
  }
  return Fact<std::string>::present(std::move(r.data), where);
}

Fact<std::string> read_attr(const Root& root, const std::string& path) {
  Fact<std::string> f = read_text(root, path, kSmallFileLimit);
  if (f.ok()) f.value = first_line(f.value);
  return f;
}

std::string basename_of(const std::string& path) {
  auto s = path.find_last_of('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

}  // namespace trainready
