#include "stage/dest_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/input_error.h"

namespace trainready::stage {
namespace {

bool no_locks_here(int err) { return err == ENOLCK || err == EOPNOTSUPP || err == ENOSYS; }

// `where`: name the lock file the PID was read from. A run refused at DST's own lock whose lock
// file holds no PID is refused by a stage with another journal (--manifest), whose lock file is
// elsewhere: this one's would only name the refused run's own.
std::string held_by(const std::string& lock_path, bool where = false) {
  std::string pid = lock_holder(lock_path);
  if (pid.empty()) {
    // The holder locks DST before it writes its PID: give it a moment (both started together).
    ::usleep(200000);
    pid = lock_holder(lock_path);
  }
  if (pid.empty())
    return where ? "another process, with another journal (--manifest)" : "another process";
  return "process " + pid + (where ? ", see " + lock_path : "");
}

}  // namespace

std::string lock_holder(const std::string& lock_path) {
  UniqueFd fd(::open(lock_path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return "";
  char buf[32] = {};
  const ssize_t n = ::read(fd.get(), buf, sizeof buf - 1);
  std::string s;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) s += buf[i];
  return s;
}

DestLock::DestLock(int dst_fd, const std::string& dst, const std::string& lock_path,
                   LockMode mode) {
  // The directory first: a refused run reads the PID the holder wrote, before writing its own.
  dir_ = UniqueFd(::dup(dst_fd));
  const int how = mode == LockMode::kWriter ? LOCK_EX : LOCK_SH;
  bool can_lock = true;
  if (!dir_ || ::flock(dir_.get(), how | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK)
      throw InputError(
          dst, 0,
          std::string(mode == LockMode::kReader ? "a stage is writing this destination"
                                                : "another stage is writing this destination") +
              " (" + held_by(lock_path, true) +
              "; one writer per destination): wait for it to end, or stop it");
    if (!no_locks_here(err))
      throw InputError(dst, 0, std::string("cannot lock: ") + std::strerror(err));
    can_lock = false;
  }
  if (mode == LockMode::kReader) return;
  file_ = UniqueFd(
      ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644));
  if (!file_)
    throw InputError(lock_path, 0,
                     std::string("cannot create the stage's lock file: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(file_.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw InputError(lock_path, 0, "not a regular file: refused as the stage's lock file");
  if (::flock(file_.get(), LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK)
      throw InputError(lock_path, 0,
                       "held by " + held_by(lock_path) + ": another stage is writing " + dst +
                           " with this journal (one writer per destination); wait for it to "
                           "end, or stop it");
    if (!no_locks_here(err))
      throw InputError(lock_path, 0, std::string("cannot lock: ") + std::strerror(err));
    can_lock = false;
  }
  if (!can_lock)
    std::fprintf(stderr,
                 "note: %s: this file system cannot lock (flock): nothing stops a second stage "
                 "into the same DST\n",
                 dst.c_str());
  // This run's PID, for a run that is refused to name.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(file_.get(), 0) == 0) (void)!::pwrite(file_.get(), pid.data(), pid.size(), 0);
}

}  // namespace trainready::stage
