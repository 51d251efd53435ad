#include "stage/posix_source.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

namespace trainready::stage {
namespace {

SourceError errno_error(int err, const std::string& path, const std::string& what) {
  SourceError::Kind kind = SourceError::Kind::kIo;
  if (err == ENOENT || err == ENOTDIR) kind = SourceError::Kind::kNotFound;
  if (err == EACCES || err == EPERM) kind = SourceError::Kind::kPermission;
  return SourceError(kind, path,
                     what + " " + (path.empty() ? "." : path) + ": " + std::strerror(err));
}

using DevIno = std::pair<dev_t, ino_t>;

DevIno dev_ino(const struct stat& st) { return {st.st_dev, st.st_ino}; }

// The target of the link `name` in directory `dfd`, for messages; empty when it cannot be read.
std::string link_target(int dfd, const char* name) {
  char buf[PATH_MAX];
  const ssize_t n = ::readlinkat(dfd, name, buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
}

std::string not_followed(const std::string& path, const std::string& target) {
  const std::string arrow = target.empty() ? "" : " (-> " + target + ")";
  if (hugging_face_blob_link(target))
    return path + ": a symbolic link into a Hugging Face hub cache's blobs/" + arrow +
           ", not followed, so not staged: this is a hub snapshot (snapshots/REVISION/ links "
           "into ../../blobs/); stage it with --follow-symlinks to copy the files it links to";
  return path + ": a symbolic link" + arrow +
         ", not followed, so not staged (--follow-symlinks copies what links point to)";
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

PosixSource::PosixSource(std::string root, PosixOptions options)
    : root_(std::move(root)), options_(std::move(options)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  root_fd_ = ::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd_ < 0) {
    const int err = errno;
    throw SourceError(err == ENOENT || err == ENOTDIR ? SourceError::Kind::kNotFound
                      : err == EACCES                 ? SourceError::Kind::kPermission
                                                      : SourceError::Kind::kIo,
                      "", root_ + ": cannot open as a directory: " + std::strerror(err));
  }
  if (char* real = ::realpath(root_.c_str(), nullptr)) {
    real_ = real;
    std::free(real);
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

bool hugging_face_blob_link(const std::string& target) {
  std::size_t at = 0, ups = 0;
  while (target.compare(at, 3, "../") == 0) at += 3, ++ups;
  if (ups == 0 || target.compare(at, 6, "blobs/") != 0) return false;
  const std::string hash = target.substr(at + 6);
  if (hash.size() != 40 && hash.size() != 64) return false;
  for (const char c : hash)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

void PosixSource::enumerate(const std::function<bool(const SourceEntry&)>& on_entry,
                            const std::function<void(const SourceError&)>& on_problem) {
  const bool follow = options_.follow_symlinks;
  // The destination is never entered (a followed link to one of its ancestors would copy DST
  // into itself, deeper on every run). Looked up again until found: --shard lists before the
  // engine creates DST.
  std::optional<DevIno> never;
  const auto is_destination = [&](const DevIno& id) {
    if (struct stat st{};
        !never && !options_.never_enter.empty() && ::stat(options_.never_enter.c_str(), &st) == 0)
      never = dev_ino(st);
    return never && id == *never;
  };
  // Depth first with an explicit stack: bounded by the tree's depth in open descriptors (one at
  // a time), never by its size; entries stream out as read. Each directory carries the
  // directories above it, by device and inode: a followed link back to one of them is a loop.
  struct Dir {
    std::string rel;
    std::vector<DevIno> above;
  };
  std::vector<Dir> dirs;
  {
    struct stat st {};
    if (::fstat(root_fd_, &st) != 0) throw errno_error(errno, "", "cannot stat");
    dirs.push_back({"", {dev_ino(st)}});
  }
  while (!dirs.empty()) {
    Dir here = std::move(dirs.back());
    dirs.pop_back();
    const std::string& rel = here.rel;
    // Opened anew, never dup(): a dup shares the directory offset, so a second listing of the
    // same source would start at the end. A directory reached through a link is opened through
    // it (only with --follow-symlinks: without, a link is never pushed here).
    const int dfd = rel.empty()
                        ? ::openat(root_fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                        : ::openat(root_fd_, rel.c_str(),
                                   O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
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
    std::vector<Dir> subdirs;
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
      bool via_link = false;
      if (S_ISLNK(st.st_mode)) {
        const std::string target = link_target(::dirfd(d), de->d_name);
        if (!follow) {
          on_problem(SourceError(SourceError::Kind::kSymlink, path, not_followed(path, target)));
          continue;
        }
        if (::fstatat(::dirfd(d), de->d_name, &st, 0) != 0) {
          const int err = errno;
          on_problem(SourceError(
              SourceError::Kind::kSymlink, path,
              path + ": a symbolic link (-> " + target + ") that " +
                  (err == ELOOP ? "loops through other links"
                                : std::string("cannot be followed: ") + std::strerror(err)) +
                  "; not staged"));
          continue;
        }
        via_link = true;
      }
      if (S_ISDIR(st.st_mode)) {
        const DevIno id = dev_ino(st);
        if (is_destination(id)) {
          on_problem(SourceError(via_link ? SourceError::Kind::kSymlink : SourceError::Kind::kIo,
                                 path,
                                 path + ": is the destination" +
                                     (via_link ? " (reached through a link)" : std::string()) +
                                     "; not copied into itself"));
          continue;
        }
        bool loop = false;
        for (const DevIno& a : here.above) loop = loop || a == id;
        if (loop) {
          on_problem(SourceError(SourceError::Kind::kSymlink, path,
                                 path + ": a symbolic link to a directory above it (a loop); not "
                                        "followed"));
          continue;
        }
        Dir sub{path, here.above};
        sub.above.push_back(id);
        subdirs.push_back(std::move(sub));
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
        on_problem(SourceError(SourceError::Kind::kSpecial, path,
                               path + ": " + (via_link ? "a link to " : "") +
                                   "a device, FIFO or socket, not a regular file; not staged"));
      }
    }
    ::closedir(d);
    // Reverse so the stack pops them in the order read.
    for (auto it = subdirs.rbegin(); it != subdirs.rend(); ++it) dirs.push_back(std::move(*it));
  }
}

std::unique_ptr<SourceReader> PosixSource::open(const SourceEntry& entry) {
  // Without --follow-symlinks an entry is never a link, and one planted at its name since the
  // listing is refused (ELOOP); with it, the link's target is read, as listed.
  const int fd = ::openat(root_fd_, entry.path.c_str(),
                          O_RDONLY | O_CLOEXEC | (options_.follow_symlinks ? 0 : O_NOFOLLOW));
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
