#include "stage/dest_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace trainready::stage {
namespace {

DestError dest_error(int err, const std::string& what) {
  return DestError{what + ": " + std::strerror(err), fatal_dest_errno(err), err};
}

void pwrite_all(int fd, const std::byte* p, std::size_t n, std::uint64_t off,
                const std::string& path) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t w = ::pwrite(fd, p + done, n - done, static_cast<off_t>(off + done));
    if (w < 0) {
      if (errno == EINTR) continue;
      throw dest_error(errno, "cannot write " + path);
    }
    if (w == 0) throw dest_error(EIO, "cannot write " + path + " (wrote nothing)");
    done += static_cast<std::size_t>(w);
  }
}

// Mode and mtime (atime set to it too), before the file gets its final name. 0 or errno, with
// `what` naming the step that failed.
int set_mode_mtime(int fd, std::uint32_t mode, std::int64_t mtime_ns, const char** what) {
  *what = "mode";
  if (::fchmod(fd, static_cast<mode_t>(mode & 07777)) != 0) return errno;
  *what = "mtime";
  struct timespec ts[2];
  ts[0].tv_sec = ts[1].tv_sec = static_cast<time_t>(mtime_ns / 1000000000);
  ts[0].tv_nsec = ts[1].tv_nsec = static_cast<long>(mtime_ns % 1000000000);
  if (ts[0].tv_nsec < 0) {
    ts[0].tv_nsec = ts[1].tv_nsec = ts[0].tv_nsec + 1000000000;
    ts[0].tv_sec = ts[1].tv_sec = ts[0].tv_sec - 1;
  }
  return ::futimens(fd, ts) == 0 ? 0 : errno;
}

std::atomic<bool> g_unnamed_allowed{true};

}  // namespace

void set_unnamed_files_allowed(bool allowed) { g_unnamed_allowed = allowed; }

int ParentDirs::get(const DestTree& dst, const std::string& rel, std::string& leaf) {
  const std::size_t slash = rel.find_last_of('/');
  const std::string dir = slash == std::string::npos ? std::string() : rel.substr(0, slash);
  if (fd_ && dir == dir_) {
    leaf = slash == std::string::npos ? rel : rel.substr(slash + 1);
    if (!leaf.empty() && leaf != "." && leaf != "..") return fd_.get();
  }
  fd_ = dst.parent_of(rel, leaf);
  dir_ = dir;
  return fd_.get();
}

bool write_whole_unnamed(const DestTree& dst, ParentDirs& dirs, const std::string& rel,
                         std::span<const std::byte> data, std::uint32_t mode, std::int64_t mtime_ns,
                         UnnamedFiles& unnamed) {
#ifdef O_TMPFILE
  if (!g_unnamed_allowed.load() || !unnamed.ok.load(std::memory_order_relaxed)) return false;
  std::string leaf;
  const int dir = dirs.get(dst, rel, leaf);
  UniqueFd fd(::openat(dir, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (!fd) {
    // EOPNOTSUPP: this file system has none; EISDIR: a kernel before 3.11.
    if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL || errno == ENOSYS)
      unnamed.ok = false;
    return false;
  }
  try {
    if (!data.empty()) pwrite_all(fd.get(), data.data(), data.size(), 0, rel);
  } catch (const DestError&) {
    return false;
  }
  const char* what = nullptr;
  if (set_mode_mtime(fd.get(), mode, mtime_ns, &what) != 0) return false;
  // The leaf is one component, relative to a directory opened without following a link; linkat
  // never follows a link at its new name (one there: EEXIST).
  if (unnamed.empty_path.load(std::memory_order_relaxed)) {
    if (::linkat(fd.get(), "", dir, leaf.c_str(), AT_EMPTY_PATH) == 0) return true;
    if (errno == EEXIST) return false;
    // Not allowed (no CAP_DAC_READ_SEARCH before Linux 6.10): so for every file of the run.
    if (errno == ENOENT) unnamed.empty_path.store(false, std::memory_order_relaxed);
  }
  // /proc/self/fd/N is the same open file.
  const std::string self = "/proc/self/fd/" + std::to_string(fd.get());
  if (::linkat(AT_FDCWD, self.c_str(), dir, leaf.c_str(), AT_SYMLINK_FOLLOW) == 0) return true;
  if (errno != EEXIST) unnamed.ok = false;  // no /proc: part files from now on
  return false;
#else
  (void)dst, (void)dirs, (void)rel, (void)data, (void)mode, (void)mtime_ns;
  unnamed.ok = false;
  return false;
#endif
}

void write_small(PartsDir& parts, const DestTree& dst, ParentDirs& dirs, std::uint64_t id,
                 const std::string& rel, std::span<const std::byte> data, std::uint32_t mode,
                 std::int64_t mtime_ns, UnnamedFiles& unnamed) {
  if (write_whole_unnamed(dst, dirs, rel, data, mode, mtime_ns, unnamed)) return;
  DestFile d(parts, id, data.size(), false, DirectWrite{}, /*preallocate=*/false);
  if (!data.empty()) d.write_at(0, data);
  d.finalize(dst, rel, mode, mtime_ns);
}

bool fatal_dest_errno(int err) {
  return err == ENOSPC || err == EDQUOT || err == EROFS || err == EIO || err == EFBIG;
}

DestFile::DestFile(PartsDir& parts, std::uint64_t id, std::uint64_t size, bool keep,
                   const DirectWrite& direct, bool preallocate)
    : parts_(parts), size_(size), direct_(direct) {
  if (keep) {
    fd_ = parts_.open_earlier(id, O_RDWR, name_);
    kept_ = fd_ >= 0;
  }
  if (fd_ < 0) fd_ = parts_.create(id, O_RDWR, name_);
  part_ = parts_.shown(name_);
  if (fd_ < 0) throw dest_error(errno, "cannot create a part file in " + parts_.path());
  if (size_ > 0 && preallocate) {
    // Preallocation: the extents come out contiguous, and a destination without room fails
    // here, before any byte is read from the source.
    if (::fallocate(fd_, 0, 0, static_cast<off_t>(size_)) != 0) {
      const int err = errno;
      if (err != EOPNOTSUPP && err != ENOSYS && err != EINVAL) {
        close_all();
        throw dest_error(err,
                         "cannot preallocate " + std::to_string(size_) + " bytes for " + part_);
      }
    }
  }
  if (direct_.enabled && size_ >= direct_.alignment) {
    direct_fd_ = ::openat(parts_.fd(), name_.c_str(), O_RDWR | O_DIRECT | O_NOFOLLOW | O_CLOEXEC);
    // EINVAL: this file system refuses O_DIRECT after all; buffered writes then. The second
    // descriptor must be the same file (the directory is private; checked all the same).
    struct stat a {
    }, b{};
    if (direct_fd_ >= 0 && (::fstat(fd_, &a) != 0 || ::fstat(direct_fd_, &b) != 0 ||
                            a.st_ino != b.st_ino || a.st_dev != b.st_dev)) {
      ::close(direct_fd_);
      direct_fd_ = -1;
    }
  }
}

DestFile::~DestFile() { close_all(); }

void DestFile::close_all() {
  if (direct_fd_ >= 0) ::close(direct_fd_);
  if (fd_ >= 0) ::close(fd_);
  direct_fd_ = fd_ = -1;
}

void DestFile::write_at(std::uint64_t offset, std::span<const std::byte> data) {
  std::size_t direct_len = 0;
  if (direct_fd_ >= 0 && offset % direct_.alignment == 0 &&
      reinterpret_cast<std::uintptr_t>(data.data()) % direct_.alignment == 0)
    direct_len = data.size() - data.size() % direct_.alignment;
  if (direct_len > 0) {
    const ssize_t w = ::pwrite(direct_fd_, data.data(), direct_len, static_cast<off_t>(offset));
    if (w == static_cast<ssize_t>(direct_len)) {
      data = data.subspan(direct_len);
      offset += direct_len;
    } else if (w < 0 && errno == EINVAL) {
      // Refused at write time (some FUSE and network file systems): buffered from now on.
      ::close(direct_fd_);
      direct_fd_ = -1;
    } else if (w < 0) {
      throw dest_error(errno, "cannot write " + part_);
    } else {
      // A short direct write: finish the range buffered.
      data = data.subspan(static_cast<std::size_t>(w));
      offset += static_cast<std::uint64_t>(w);
    }
  }
  if (!data.empty()) pwrite_all(fd_, data.data(), data.size(), offset, part_);
}

bool DestFile::read_at(std::uint64_t offset, std::span<std::byte> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

void DestFile::finalize(const DestTree& dst, const std::string& rel, std::uint32_t mode,
                        std::int64_t mtime_ns) {
  // Preallocation past the end would make the file longer than the source only if the size
  // changed; cut to the exact size anyway (fallocate on some file systems rounds up).
  if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0)
    throw dest_error(errno, "cannot set the size of " + part_);
  const char* what = nullptr;
  if (const int e = set_mode_mtime(fd_, mode, mtime_ns, &what); e != 0)
    throw dest_error(e, std::string("cannot set the ") + what + " of " + part_);
  close_all();
  std::string leaf;
  const UniqueFd dir = dst.parent_of(rel, leaf);
  if (::renameat(parts_.fd(), name_.c_str(), dir.get(), leaf.c_str()) != 0)
    throw dest_error(errno, "cannot rename " + part_ + " to " + dst.path() + "/" + rel);
}

void DestFile::discard() {
  close_all();
  parts_.unlink_name(name_);
}

}  // namespace trainready::stage
