#include "core/root.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "core/input_error.h"

namespace trainready {
namespace {

constexpr std::size_t kMaxDirEntries = 100000;
// Spare capacity after a file's text (read_file): simdjson's SIMDJSON_PADDING.
constexpr std::size_t kReadSpare = 64;

std::string errno_text(int e) { return std::strerror(e); }

bool is_missing_errno(int e) { return e == ENOENT || e == ENOTDIR; }

std::string relative(const std::string& path) {
  std::size_t i = 0;
  while (i < path.size() && path[i] == '/') ++i;
  return i == path.size() ? std::string(".") : path.substr(i);
}

std::string too_large(std::size_t limit) {
  return "larger than " + std::to_string(limit) + " bytes, not the small text file expected";
}

}  // namespace

FileRead read_stdin(std::size_t limit) {
  // 1 MiB chunks, joined once the end is reached: a stream over the limit costs the limit, not
  // the twice-the-limit of a doubling buffer.
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  FileRead r;
  std::vector<std::string> chunks;
  std::size_t used = 0;
  std::size_t fill = kChunk;  // bytes in chunks.back()
  for (;;) {
    if (fill == kChunk) {
      if (used > limit) break;
      chunks.emplace_back(kChunk, '\0');
      fill = 0;
    }
    ssize_t n = ::read(STDIN_FILENO, chunks.back().data() + fill, kChunk - fill);
    if (n < 0) {
      if (errno == EINTR) continue;
      r.status = ReadStatus::kUnreadable;
      r.error = errno_text(errno);
      return r;
    }
    if (n == 0) break;
    fill += static_cast<std::size_t>(n);
    used += static_cast<std::size_t>(n);
  }
  if (!chunks.empty()) chunks.back().resize(fill);
  if (used > limit) {
    r.status = ReadStatus::kUnreadable;
    r.error = "more than " + std::to_string(limit) + " bytes on stdin; gave up";
    return r;
  }
  if (chunks.size() == 1) {
    r.data = std::move(chunks.front());
  } else {
    r.data.reserve(used);
    for (std::string& c : chunks) {
      r.data += c;
      std::string().swap(c);
    }
  }
  r.status = ReadStatus::kOk;
  return r;
}

void require_snapshot_root(const Root& root, const std::string& given) {
  if (root.is_live()) return;
  DirList top = root.list_dir("/");
  if (!top.ok())
    throw InputError(given, 0,
                     "not a readable directory (" + top.error +
                         "); expected a snapshot written by `trainready collect`");
}

FsRoot::FsRoot(std::string prefix) : prefix_(std::move(prefix)) {
  while (prefix_.size() > 1 && prefix_.back() == '/') prefix_.pop_back();
  live_ = prefix_.empty() || prefix_ == "/";
  if (live_) {
    prefix_ = "/";
  } else {
    root_fd_ = ::open(prefix_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  }
}

FsRoot::~FsRoot() {
  if (root_fd_ >= 0) ::close(root_fd_);
}

int FsRoot::open_in_root(const std::string& path, int flags) const {
  if (live_) return ::open(path.c_str(), flags | O_CLOEXEC);
  if (root_fd_ < 0) {
    errno = ENOENT;
    return -1;
  }
  const std::string rel = relative(path);
#ifdef SYS_openat2
  // Resolve symlinks as if the snapshot were "/": a snapshot from someone else's machine must
  // not make us read our own /etc through a crafted link.
  open_how how{};
  how.flags = static_cast<unsigned long long>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  long fd = ::syscall(SYS_openat2, root_fd_, rel.c_str(), &how, sizeof(how));
  if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) return static_cast<int>(fd);
#endif
  return ::openat(root_fd_, rel.c_str(), flags | O_CLOEXEC | O_NOFOLLOW);
}

FileRead FsRoot::read_file(const std::string& path, std::size_t limit) const {
  FileRead r;
  int fd = open_in_root(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    int e = errno;
    r.status = is_missing_errno(e) ? ReadStatus::kMissing : ReadStatus::kUnreadable;
    r.error = errno_text(e);
    return r;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    r.status = ReadStatus::kUnreadable;
    r.error = S_ISDIR(st.st_mode) ? "is a directory, expected a file" : "not a regular file";
    return r;
  }
  // Refused by its size before a byte is read (a 1 GiB file costs nothing); procfs and sysfs
  // report 0 or 4096 whatever they hold, so the read below stays bounded too.
  if (st.st_size > 0 && static_cast<std::uint64_t>(st.st_size) > limit) {
    ::close(fd);
    r.status = ReadStatus::kUnreadable;
    r.error = too_large(limit);
    return r;
  }
  // A regular file is read into a buffer of its size (one byte more, to see it has not grown),
  // not grown by doubling from 64 KiB: doubling copies the text at each step and leaves up to
  // half the buffer zero-filled and resident (a 51 MB template held 64 MiB). kReadSpare more
  // bytes of capacity: parsers that read in SIMD blocks need that much past the text
  // (simdjson's padding, src/iac/template_json.cpp) and would otherwise copy the whole file.
  std::string buf;
  const std::size_t first = st.st_size > 0
                                ? std::min(limit, static_cast<std::size_t>(st.st_size)) + 1
                                : std::min<std::size_t>(limit + 1, std::size_t{64} * 1024);
  buf.reserve(first + kReadSpare);
  buf.resize(first);
  std::size_t used = 0;
  for (;;) {
    if (used == buf.size()) {
      if (buf.size() > limit) break;
      buf.resize(std::min(buf.size() * 2, limit + 1));
    }
    ssize_t n = ::read(fd, buf.data() + used, buf.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      r.status = ReadStatus::kUnreadable;
      r.error = errno_text(e);
      return r;
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (used > limit) {
    r.status = ReadStatus::kUnreadable;
    r.error = too_large(limit);
    return r;
  }
  buf.resize(used);
  r.status = ReadStatus::kOk;
  r.data = std::move(buf);
  return r;
}

DirList FsRoot::list_dir(const std::string& path) const {
  DirList r;
  int fd = open_in_root(path, O_RDONLY | O_DIRECTORY);
  if (fd < 0) {
    int e = errno;
    r.status = is_missing_errno(e) ? ReadStatus::kMissing : ReadStatus::kUnreadable;
    r.error = errno_text(e);
    return r;
  }
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    int e = errno;
    ::close(fd);
    r.status = ReadStatus::kUnreadable;
    r.error = errno_text(e);
    return r;
  }
  while (dirent* ent = ::readdir(d)) {
    std::string name = ent->d_name;
    if (name == "." || name == "..") continue;
    r.entries.push_back(std::move(name));
    if (r.entries.size() >= kMaxDirEntries) break;
  }
  ::closedir(d);
  std::sort(r.entries.begin(), r.entries.end());
  r.status = ReadStatus::kOk;
  return r;
}

LinkRead FsRoot::read_link(const std::string& path) const {
  LinkRead r;
  std::string dir = "/";
  std::string base = path;
  if (auto slash = path.find_last_of('/'); slash != std::string::npos) {
    dir = slash == 0 ? "/" : path.substr(0, slash);
    base = path.substr(slash + 1);
  }
  int dfd = open_in_root(dir, O_PATH | O_DIRECTORY);
  if (dfd < 0) {
    int e = errno;
    r.status = is_missing_errno(e) ? ReadStatus::kMissing : ReadStatus::kUnreadable;
    r.error = errno_text(e);
    return r;
  }
  char buf[4096];
  ssize_t n = ::readlinkat(dfd, base.c_str(), buf, sizeof(buf) - 1);
  int e = errno;
  ::close(dfd);
  if (n < 0) {
    r.status = is_missing_errno(e) ? ReadStatus::kMissing : ReadStatus::kUnreadable;
    r.error = e == EINVAL ? "not a symbolic link" : errno_text(e);
    return r;
  }
  r.status = ReadStatus::kOk;
  r.target.assign(buf, static_cast<std::size_t>(n));
  return r;
}

std::string FsRoot::display(const std::string& path) const {
  if (live_) return path;
  return prefix_ + (path.empty() || path[0] != '/' ? "/" : "") + path;
}

}  // namespace trainready
