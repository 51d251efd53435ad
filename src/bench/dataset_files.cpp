#include "bench/dataset_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>

#include "core/input_error.h"
#include "core/temp_files.h"

namespace trainready {
namespace {

std::string errno_text(int e) { return std::strerror(e); }

std::string file_name(int i) {
  char b[32];
  std::snprintf(b, sizeof b, "data-%06d.bin", i);
  return b;
}

// Writes `size` bytes of a reproducible pseudo-random stream; returns errno or 0.
int write_file(int fd, std::uint64_t size, std::uint64_t seed) {
  constexpr std::size_t kChunk = 1 << 20;
  std::vector<std::uint64_t> buf(kChunk / 8);
  std::mt19937_64 rng(seed);
  std::uint64_t left = size;
  while (left > 0) {
    for (auto& w : buf) w = rng();
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, kChunk));
    const char* p = reinterpret_cast<const char*>(buf.data());
    std::size_t done = 0;
    while (done < n) {
      const ssize_t w = ::write(fd, p + done, n - done);
      if (w < 0) {
        if (errno == EINTR) continue;
        return errno;
      }
      if (w == 0) return ENOSPC;
      done += static_cast<std::size_t>(w);
    }
    left -= n;
  }
  return ::fsync(fd) == 0 ? 0 : errno;
}

}  // namespace

std::vector<DatasetFile> list_dataset(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(path, 0, "cannot read the dataset path: " + errno_text(errno));
  std::vector<DatasetFile> files;
  if (S_ISREG(st.st_mode)) {
    if (::access(path.c_str(), R_OK) != 0)
      throw InputError(path, 0, "cannot read the file: " + errno_text(errno));
    files.push_back({path, static_cast<std::uint64_t>(st.st_size)});
  } else if (S_ISDIR(st.st_mode)) {
    DIR* d = ::opendir(path.c_str());
    if (!d) throw InputError(path, 0, "cannot list the directory: " + errno_text(errno));
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "." || name == ".." || name.rfind(".tmp-", 0) == 0) continue;
      const std::string p = path + "/" + name;
      struct stat fs {};
      if (::stat(p.c_str(), &fs) == 0 && S_ISREG(fs.st_mode) && fs.st_size > 0)
        files.push_back({p, static_cast<std::uint64_t>(fs.st_size)});
    }
    ::closedir(d);
    std::sort(files.begin(), files.end(),
              [](const DatasetFile& a, const DatasetFile& b) { return a.path < b.path; });
  } else {
    throw InputError(path, 0, "expected a file or a directory of files");
  }
  if (files.empty())
    throw InputError(
        path, 0, "no non-empty regular files to read (create some with --create N --file-size S)");
  return files;
}

namespace {

// ".tmp-data-000000.bin.HOST.PID" (this version) or ".tmp-data-000000.bin.PID" (before): the
// temporaries create_dataset names. Returns the "HOST.PID" / "PID" tail, or empty.
std::string temp_suffix(const std::string& name) {
  static const std::string kPrefix = ".tmp-data-";
  if (name.rfind(kPrefix, 0) != 0) return {};
  const std::size_t bin = name.find(".bin.", kPrefix.size());
  if (bin != kPrefix.size() + 6) return {};
  return name.substr(bin + 5);
}

// Temporaries an earlier run left when it was killed outright (SIGKILL, a power cut): removed
// when that run was on this host and its process is gone; one named without a host (an older
// version) only when nothing has written it for an hour, since another node of a shared file
// system may still be writing it.
void remove_stale_temporaries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  std::vector<std::string> stale;
  const std::time_t now = std::time(nullptr);
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    const std::string tail = temp_suffix(name);
    if (tail.empty()) continue;
    const std::string p = dir + "/" + name;
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const bool legacy = tail.find_first_not_of("0123456789") == std::string::npos;
    if (legacy ? now - st.st_mtime > 3600 : temp_tag_is_stale(tail)) stale.push_back(p);
  }
  ::closedir(d);
  for (const std::string& p : stale) ::unlink(p.c_str());
}

}  // namespace

CreateResult create_dataset(const std::string& dir, int count, std::uint64_t size, bool replace) {
  if (count < 1 || size < 1)
    throw InputError("--create", 0, "expected at least one file of at least one byte");
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    throw InputError(dir, 0, "cannot create the dataset directory: " + errno_text(errno));
  remove_stale_temporaries(dir);
  // What is already there decides before anything is written: a file of the right size is read
  // as it is (never written, never removed); anything else under one of our names belongs to
  // someone and is refused unless --replace says so.
  std::vector<bool> reuse(static_cast<std::size_t>(count), false);
  for (int i = 0; i < count; ++i) {
    const std::string final_path = dir + "/" + file_name(i);
    struct stat st {};
    if (::lstat(final_path.c_str(), &st) != 0) {
      if (errno == ENOENT) continue;
      throw InputError(final_path, 0, "cannot check the existing file: " + errno_text(errno));
    }
    if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) == size) {
      reuse[static_cast<std::size_t>(i)] = true;
      continue;
    }
    if (!replace || !S_ISREG(st.st_mode))
      throw InputError(
          final_path, 0,
          std::string("already exists") +
              (S_ISREG(st.st_mode) ? " with " + std::to_string(st.st_size) + " bytes, not the " +
                                         std::to_string(size) + " asked for"
                                   : " and is not a regular file") +
              "; not overwritten" +
              (S_ISREG(st.st_mode) ? " (--replace writes over it)"
                                   : " (remove it or choose another directory)"));
  }
  // A file-size limit (ulimit -f) would otherwise kill the process mid-file with SIGXFSZ; as an
  // error it is cleaned up like a full disk.
  struct sigaction ignore {};
  struct sigaction old {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGXFSZ, &ignore, &old);
  CreateResult r;
  std::vector<std::string> created;
  const auto t0 = std::chrono::steady_clock::now();
  auto fail = [&](const std::string& what) {
    for (const std::string& p : created) ::unlink(p.c_str());
    ::sigaction(SIGXFSZ, &old, nullptr);
    throw InputError(
        dir, 0,
        what + "; removed the " + std::to_string(created.size()) + " file(s) this run had written");
  };
  const std::string tag = temp_tag();
  for (int i = 0; i < count; ++i) {
    const std::string final_path = dir + "/" + file_name(i);
    if (reuse[static_cast<std::size_t>(i)]) {
      ++r.reused;
      r.files.push_back({final_path, size});
      continue;
    }
    const std::string tmp = dir + "/.tmp-" + file_name(i) + "." + tag;
    TempGuard guard(tmp);  // registered before it exists: SIGINT/SIGTERM mid-file remove it
    // O_EXCL: a name this run did not make is never written through.
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) {
      // Our own name: left by an earlier process of this host with our PID (reused), not open
      // anywhere now.
      ::unlink(tmp.c_str());
      fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    if (fd < 0) fail("cannot create " + tmp + ": " + errno_text(errno));
    const int err = write_file(fd, size, static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull + 1);
    ::close(fd);
    if (err != 0) {
      ::unlink(tmp.c_str());
      fail("writing " + final_path + " failed after " + std::to_string(i) +
           " file(s): " + errno_text(err) +
           (err == ENOSPC || err == EFBIG ? " (disk or file-size limit full)" : ""));
    }
    if (::rename(tmp.c_str(), final_path.c_str()) != 0) {
      const int e = errno;
      ::unlink(tmp.c_str());
      fail("cannot rename " + tmp + ": " + errno_text(e));
    }
    guard.release();
    created.push_back(final_path);
    r.files.push_back({final_path, size});
    r.bytes += size;
  }
  ::sigaction(SIGXFSZ, &old, nullptr);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

OpenDataset::OpenDataset(const std::vector<DatasetFile>& files, bool direct) : direct_(direct) {
  if (open_all(files, direct)) return;
  direct_ = false;
  if (!open_all(files, false)) throw InputError(refused_, 0, "cannot open for reading");
}

OpenDataset::~OpenDataset() { close_all(); }

void OpenDataset::close_all() {
  for (int fd : fds_) ::close(fd);
  fds_.clear();
}

bool OpenDataset::open_all(const std::vector<DatasetFile>& files, bool direct) {
  close_all();
  for (const DatasetFile& f : files) {
    const int fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
    if (fd >= 0) {
      fds_.push_back(fd);
      continue;
    }
    const int e = errno;
    close_all();
    if (direct && e == EINVAL) {
      refused_ = f.path;
      return false;
    }
    throw InputError(f.path, 0, std::string("cannot open for reading: ") + errno_text(e));
  }
  return true;
}

}  // namespace trainready
