#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "core/temp_files.h"

namespace trainready {

namespace {

// A device or FIFO (-o /dev/null, -o /dev/stdout, a named pipe) is written in place: renaming a
// temporary file over it would replace the device with a regular file.
bool write_special(const std::string& path, std::string_view data) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return false;
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  std::size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      ::close(fd);
      throw std::runtime_error(path + ": write failed: " + std::strerror(e));
    }
    off += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return true;
}

// The process's umask without changing it (a umask(0)/umask(old) pair would let another thread
// create a file under umask 0 in between): Linux 4.7+ shows it in /proc/self/status.
mode_t current_umask() {
  if (FILE* f = std::fopen("/proc/self/status", "re"); f != nullptr) {
    char line[256];
    unsigned mask = 0;
    bool found = false;
    while (std::fgets(line, sizeof line, f) != nullptr) {
      if (std::sscanf(line, "Umask: %o", &mask) == 1) {
        found = true;
        break;
      }
    }
    std::fclose(f);
    if (found) return static_cast<mode_t>(mask & 0777);
  }
  static std::mutex mu;
  std::lock_guard lock(mu);
  const mode_t old = ::umask(022);
  ::umask(old);
  return old;
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view data) {
  if (write_special(path, data)) return;
  std::string tmp = path + ".tmp-XXXXXX";
  std::optional<SignalsHeld> held(std::in_place);  // until the guard knows the name
  int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    throw std::runtime_error(path + ": cannot create temporary file: " + std::strerror(errno));
  TempGuard guard(tmp);  // SIGINT/SIGTERM before the rename removes it
  held.reset();
  auto fail = [&](const char* what) {
    int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": " + what + ": " + std::strerror(e));
  };
  std::size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write failed");
    }
    off += static_cast<std::size_t>(n);
  }
  // mkstemp makes 0600; the file gets what open(O_CREAT, 0666) would have given it, the user's
  // umask applied (a report under umask 077 stays private).
  if (::fchmod(fd, 0666 & ~current_umask()) != 0) fail("chmod failed");
  if (::fsync(fd) != 0) fail("fsync failed");
  if (::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": close failed: " + std::strerror(e));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": rename failed: " + std::strerror(e));
  }
}

}  // namespace trainready
