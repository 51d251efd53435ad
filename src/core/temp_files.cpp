#include "core/temp_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <mutex>

#include "core/host_name.h"

namespace trainready {
namespace {

constexpr int kSlots = 16;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 file, 3 directory
  char path[PATH_MAX];
};

Slot g_slots[kSlots];
struct sigaction g_old[sizeof(kSignals) / sizeof(kSignals[0])];
bool g_installed[sizeof(kSignals) / sizeof(kSignals[0])];
std::once_flag g_install_once;

// Async-signal-safe: openat, getdents64, unlinkat, close, lseek. Bounded depth.
bool remove_at(int dirfd, const char* name, int depth) {
  if (::unlinkat(dirfd, name, 0) == 0 || errno == ENOENT) return true;
  if (errno != EISDIR && errno != EPERM) return false;
  if (depth > 64) return false;
  const int fd = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  alignas(8) char buf[4096];
  bool removed_any = true;
  // Entries removed while reading may shift the directory's offsets: read again until a pass
  // removes nothing.
  for (int pass = 0; removed_any && pass < 1000; ++pass) {
    removed_any = false;
    ::lseek(fd, 0, SEEK_SET);
    for (;;) {
      const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
      if (n <= 0) break;
      for (long off = 0; off < n;) {
        // struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, char name[]
        unsigned short reclen = 0;
        std::memcpy(&reclen, buf + off + 16, sizeof reclen);
        const char* child = buf + off + 19;
        off += reclen;
        if (reclen == 0) break;
        if (child[0] == '.' && (child[1] == 0 || (child[1] == '.' && child[2] == 0))) continue;
        if (remove_at(fd, child, depth + 1)) removed_any = true;
      }
    }
  }
  ::close(fd);
  return ::unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT;
}

void on_signal(int sig) {
  const int saved = errno;
  for (Slot& s : g_slots) {
    const int st = s.state.load(std::memory_order_acquire);
    if (st == 2) ::unlink(s.path);
    if (st == 3) remove_at(AT_FDCWD, s.path, 0);
  }
  // Back to what was there before (the default: terminate) and let the signal do that once this
  // handler returns (it is blocked while the handler runs).
  for (std::size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i) {
    if (kSignals[i] == sig && g_installed[i]) ::sigaction(sig, &g_old[i], nullptr);
  }
  ::raise(sig);
  errno = saved;
}

void install() {
  for (std::size_t i = 0; i < sizeof(kSignals) / sizeof(kSignals[0]); ++i) {
    struct sigaction old {};
    if (::sigaction(kSignals[i], nullptr, &old) != 0) continue;
    // An ignored signal (nohup) stays ignored; a handler someone else installed (MPI) is kept
    // and runs after ours.
    if (old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (int s : kSignals) sigaddset(&sa.sa_mask, s);
    g_old[i] = old;
    g_installed[i] = true;
    ::sigaction(kSignals[i], &sa, nullptr);
  }
}

}  // namespace

TempGuard::TempGuard(const std::string& path, bool directory) {
  std::call_once(g_install_once, install);
  if (path.empty() || path.size() >= PATH_MAX) return;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!g_slots[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].state.store(directory ? 3 : 2, std::memory_order_release);
    slot_ = i;
    return;
  }
}

TempGuard::~TempGuard() { release(); }

void TempGuard::release() {
  if (slot_ >= 0) g_slots[slot_].state.store(0, std::memory_order_release);
  slot_ = -1;
}

static_assert(sizeof(sigset_t) <= sizeof(unsigned long) * 16, "sigset_t fits");

SignalsHeld::SignalsHeld() {
  std::call_once(g_install_once, install);
  sigset_t held;
  sigemptyset(&held);
  for (int s : kSignals) sigaddset(&held, s);
  ::pthread_sigmask(SIG_BLOCK, &held, reinterpret_cast<sigset_t*>(old_));
}

SignalsHeld::~SignalsHeld() {
  ::pthread_sigmask(SIG_SETMASK, reinterpret_cast<sigset_t*>(old_), nullptr);
}

std::string temp_tag() {
  std::string host = host_name();
  if (host.empty()) host = "host";
  std::string h;
  for (const char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    h += ok ? c : '_';
  }
  if (h.empty()) h = "host";
  return h + "." + std::to_string(::getpid());
}

bool temp_tag_is_stale(std::string_view tag) {
  const std::size_t dot = tag.rfind('.');
  if (dot == std::string_view::npos || dot + 1 >= tag.size()) return false;
  const std::string mine = temp_tag();
  const std::string_view my_host = std::string_view(mine).substr(0, mine.rfind('.'));
  if (tag.substr(0, dot) != my_host) return false;
  long pid = 0;
  for (char c : tag.substr(dot + 1)) {
    if (c < '0' || c > '9' || pid > 100000000) return false;
    pid = pid * 10 + (c - '0');
  }
  if (pid <= 0 || pid == ::getpid()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

bool remove_tree(const std::string& path) { return remove_at(AT_FDCWD, path.c_str(), 0); }

}  // namespace trainready
