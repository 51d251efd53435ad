#include "core/mapped_file.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <mutex>

namespace trainready {
namespace {

// The live mappings, read by the signal handler: lock-free atomics only. A slot is claimed by
// a compare-and-swap of `used`; the handler reads it once `begin` is set (0: not live).
constexpr int kSlots = 16;
struct Live {
  std::atomic<bool> used{false};
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<bool> shrank{false};
};
Live g_live[kSlots];
struct sigaction g_previous {};
std::uintptr_t g_page = 4096;  // set before the handler is installed (sysconf is not signal-safe)

void on_sigbus(int sig, siginfo_t* info, void* ctx) {
  // Only a fault the kernel raised for an address no file page backs (BUS_ADRERR: the file is
  // shorter than the mapping) is ours; a SIGBUS sent by kill (si_code <= 0), a hardware memory
  // error (BUS_MCEERR_*) or an alignment fault goes on to whatever handled SIGBUS before.
  const bool adrerr = info != nullptr && info->si_code == BUS_ADRERR;
  const auto addr = reinterpret_cast<std::uintptr_t>(adrerr ? info->si_addr : nullptr);
  for (Live& l : g_live) {
    if (!adrerr) break;
    const std::uintptr_t b = l.begin.load(std::memory_order_acquire);
    if (b == 0 || addr < b || addr >= l.end.load(std::memory_order_acquire)) continue;
    if (l.begin.load(std::memory_order_acquire) != b) continue;  // the slot changed hands
    // A page of a mapping the file no longer backs: a private zero page in its place (the raw
    // system call, which no sanitizer intercepts), and the mapping marked so its reader gives up.
    const std::uintptr_t at = addr & ~(g_page - 1);
    const long r =
        ::syscall(SYS_mmap, at, g_page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (r == -1) break;  // cannot recover: as if no handler were here
    l.shrank.store(true, std::memory_order_release);
    return;
  }
  // Not ours: whatever handled SIGBUS before this one.
  if ((g_previous.sa_flags & SA_SIGINFO) && g_previous.sa_sigaction) {
    g_previous.sa_sigaction(sig, info, ctx);
    return;
  }
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN &&
      g_previous.sa_handler) {
    g_previous.sa_handler(sig);
    return;
  }
  // Ignored before: a SIGBUS sent by kill stays ignored; a fault cannot be (it would recur).
  if (g_previous.sa_handler == SIG_IGN && !(g_previous.sa_flags & SA_SIGINFO) &&
      (info == nullptr || info->si_code <= 0))
    return;
  // The default action: the process dies of SIGBUS (raised again, as a signal sent by kill
  // would not come back by itself the way a fault does).
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(SIGBUS, &dfl, nullptr);
  ::raise(SIGBUS);
}

bool install_handler() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] {
    g_page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    // The previous action first, so a SIGBUS in between never finds g_previous empty.
    if (::sigaction(SIGBUS, nullptr, &g_previous) != 0) return;
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | (g_previous.sa_flags & SA_ONSTACK);
    sigemptyset(&sa.sa_mask);
    ok = ::sigaction(SIGBUS, &sa, nullptr) == 0;
  });
  return ok;
}

}  // namespace

std::unique_ptr<MappedFile> MappedFile::map(int fd, std::uint64_t size) {
  if (size == 0 || size > (std::uint64_t{1} << 46) || !install_handler()) return nullptr;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t pages = (static_cast<std::size_t>(size) + page - 1) / page * page;
  // Reserve the file's pages and one more, inaccessible; then map the file over the first part.
  void* span = ::mmap(nullptr, pages + page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (span == MAP_FAILED) return nullptr;
  void* file = ::mmap(span, pages, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  if (file == MAP_FAILED) {
    ::munmap(span, pages + page);
    return nullptr;
  }
  std::unique_ptr<MappedFile> m(new MappedFile());
  m->data_ = static_cast<char*>(file);
  m->size_ = static_cast<std::size_t>(size);
  m->span_ = pages + page;
  const auto b = reinterpret_cast<std::uintptr_t>(file);
  for (int i = 0; i < kSlots; ++i) {
    bool taken = false;
    if (!g_live[i].used.compare_exchange_strong(taken, true, std::memory_order_acq_rel)) continue;
    g_live[i].end.store(b + pages, std::memory_order_release);
    g_live[i].shrank.store(false, std::memory_order_release);
    g_live[i].begin.store(b, std::memory_order_release);
    m->slot_ = i;
    break;
  }
  if (m->slot_ < 0) return nullptr;  // the destructor unmaps it
  // Read once from start to end: the kernel may read ahead further and drop pages behind.
  ::madvise(file, pages, MADV_SEQUENTIAL);
  return m;
}

MappedFile::~MappedFile() {
  if (slot_ >= 0) {
    g_live[slot_].begin.store(0, std::memory_order_release);
    g_live[slot_].used.store(false, std::memory_order_release);
  }
  if (data_) ::munmap(data_, span_);
}

void MappedFile::release_before(std::size_t offset) {
  constexpr std::size_t kStep = std::size_t{2} << 20;
  const std::size_t end = std::min(offset, size_) / kStep * kStep;
  if (end <= released_) return;
  ::madvise(data_ + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

void MappedFile::populate(std::size_t offset, std::size_t len) const {
#if defined(MADV_POPULATE_READ)
  constexpr int kPopulateRead = MADV_POPULATE_READ;
#else
  constexpr int kPopulateRead = 22;  // <linux/mman.h> since 5.14; EINVAL on older kernels
#endif
  static std::atomic<bool> unsupported{false};
  if (offset >= size_ || len == 0 || unsupported.load(std::memory_order_relaxed)) return;
  static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t from = offset / page * page;
  const std::size_t to = std::min(offset + len, size_);
  if (::madvise(data_ + from, to - from, kPopulateRead) != 0 && errno == EINVAL)
    unsupported.store(true, std::memory_order_relaxed);
}

bool MappedFile::shrank() const {
  return slot_ >= 0 && g_live[slot_].shrank.load(std::memory_order_acquire);
}

}  // namespace trainready
