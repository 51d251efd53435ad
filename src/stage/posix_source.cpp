#include "stage/posix_source.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace trainready::stage {
namespace {

SourceError errno_error(int err, const std::string& path, const std::string& what) {
  SourceError::Kind kind = SourceError::Kind::kIo;
  if (err == ENOENT || err == ENOTDIR) kind = SourceError::Kind::kNotFound;
  if (err == EACCES || err == EPERM) kind = SourceError::Kind::kPermission;
  return SourceError(kind, path,
                     what + " " + (path.empty() ? "." : path) + ": " + std::strerror(err));
}

std::int64_t mtime_ns_of(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

class PosixReader : public SourceReader {
 public:
  PosixReader(int fd, SourceEntry entry) : fd_(fd), entry_(std::move(entry)) {}
  ~PosixReader() override { ::close(fd_); }

  void read_at(std::uint64_t offset, std::span<std::byte> buf) override {
    std::size_t done = 0;
    while (done < buf.size()) {
      const ssize_t n =
          ::pread(fd_, buf.data() + done, buf.size() - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        throw errno_error(errno, entry_.path, "cannot read");
      }
      if (n == 0)
        throw SourceError(SourceError::Kind::kChanged, entry_.path,
                          entry_.path + ": shorter than the " + std::to_string(entry_.size) +
                              " bytes listed (changed since it was listed)");
      done += static_cast<std::size_t>(n);
    }
  }

  void confirm_unchanged() override { check_version(fd_, entry_); }

  // Throws kChanged when the open file is not the version in `e`.
  static void check_version(int fd, const SourceEntry& e) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw errno_error(errno, e.path, "cannot stat");
    const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
    if (size != e.size || mtime_ns_of(st) != e.mtime_ns)
      throw SourceError(SourceError::Kind::kChanged, e.path,
                        e.path + ": changed since it was listed (size " + std::to_string(e.size) +
                            " -> " + std::to_string(size) + ", mtime " +
                            std::to_string(e.mtime_ns) + " -> " + std::to_string(mtime_ns_of(st)) +
                            " ns)");
  }

 private:
  int fd_;
  SourceEntry entry_;
};

}  // namespace

PosixSource::PosixSource(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  root_fd_ = ::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd_ < 0) {
    const int err = errno;
    throw SourceError(err == ENOENT || err == ENOTDIR ? SourceError::Kind::kNotFound
                      : err == EACCES                 ? SourceError::Kind::kPermission
                                                      : SourceError::Kind::kIo,
                      "", root_ + ": cannot open as a directory: " + std::strerror(err));
  }
}

PosixSource::~PosixSource() {
  if (root_fd_ >= 0) ::close(root_fd_);
}

SourceHints PosixSource::hints() const {
  SourceHints h;
  h.max_parallel_reads = 16;
  h.chunk_bytes = 16ull << 20;
  h.remote = false;
  return h;
}

void PosixSource::enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                            const std::function<void(const SourceError&)>& on_problem) {
  skipped_.clear();
  // Depth first with an explicit stack of relative directory names: bounded by the tree's depth
  // in open descriptors (one at a time), never by its size; entries stream out as read.
  std::vector<std::string> dirs{""};
  while (!dirs.empty()) {
    const std::string rel = std::move(dirs.back());
    dirs.pop_back();
    // Opened anew, never dup(): a dup shares the directory offset, so a second listing of the
    // same source would start at the end.
    const int dfd = rel.empty() ? ::openat(root_fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                : ::openat(root_fd_, rel.c_str(),
                                           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
      on_problem(errno_error(errno, rel, "cannot open directory"));
      continue;
    }
    DIR* d = ::fdopendir(dfd);
    if (d == nullptr) {
      on_problem(errno_error(errno, rel, "cannot read directory"));
      ::close(dfd);
      continue;
    }
    std::vector<std::string> subdirs;
    for (;;) {
      errno = 0;
      struct dirent* de = ::readdir(d);
      if (de == nullptr) {
        if (errno != 0) on_problem(errno_error(errno, rel, "cannot read directory"));
        break;
      }
      const std::string name = de->d_name;
      if (name == "." || name == "..") continue;
      const std::string path = rel.empty() ? name : rel + "/" + name;
      struct stat st {};
      if (::fstatat(::dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        on_problem(errno_error(errno, path, "cannot stat"));
        continue;
      }
      if (S_ISDIR(st.st_mode)) {
        subdirs.push_back(path);
      } else if (S_ISREG(st.st_mode)) {
        SourceEntry e;
        e.path = path;
        e.size = static_cast<std::uint64_t>(st.st_size);
        e.mtime_ns = mtime_ns_of(st);
        e.mode = st.st_mode & 07777;
        if (!on_entry(e)) {
          ::closedir(d);
          return;
        }
      } else {
        skipped_.push_back(path);
      }
    }
    ::closedir(d);
    // Reverse so the stack pops them in the order read.
    dirs.insert(dirs.end(), subdirs.rbegin(), subdirs.rend());
  }
}

std::unique_ptr<SourceReader> PosixSource::open(const SourceEntry& entry) {
  const int fd = ::openat(root_fd_, entry.path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) throw errno_error(errno, entry.path, "cannot open");
  try {
    PosixReader::check_version(fd, entry);
  } catch (...) {
    ::close(fd);
    throw;
  }
  return std::make_unique<PosixReader>(fd, entry);
}

}  // namespace trainready::stage
