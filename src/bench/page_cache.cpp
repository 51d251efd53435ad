#include "bench/page_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace trainready {
namespace {

#ifndef __NR_cachestat
constexpr long kCachestat = 451;  // the same number on every architecture
#else
constexpr long kCachestat = __NR_cachestat;
#endif

struct CachestatRange {
  std::uint64_t off;
  std::uint64_t len;
};
struct Cachestat {
  std::uint64_t nr_cache;
  std::uint64_t nr_dirty;
  std::uint64_t nr_writeback;
  std::uint64_t nr_evicted;
  std::uint64_t nr_recently_evicted;
};

class Fd {
 public:
  explicit Fd(const std::string& p) : fd_(::open(p.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Pages resident in [0, size): cachestat, or -1 with errno when the kernel lacks it.
long long cachestat_pages(int fd) {
  CachestatRange range{0, 0};  // len 0: to the end of the file
  Cachestat cs{};
  if (::syscall(kCachestat, fd, &range, &cs, 0) != 0) return -1;
  return static_cast<long long>(cs.nr_cache);
}

long long mincore_pages(int fd, std::uint64_t size, std::string& why) {
  if (size == 0) return 0;
  void* m = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  if (m == MAP_FAILED) {
    why = std::string("mmap: ") + std::strerror(errno);
    return -1;
  }
  const long page = ::sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> vec((size + page - 1) / page);
  long long n = -1;
  if (::mincore(m, size, vec.data()) == 0) {
    n = 0;
    for (unsigned char v : vec) n += v & 1;
  } else {
    why = std::string("mincore: ") + std::strerror(errno);
  }
  ::munmap(m, size);
  return n;
}

}  // namespace

Residency measure_residency(const std::vector<DatasetFile>& files) {
  Residency r;
  const long page = ::sysconf(_SC_PAGESIZE);
  bool use_cachestat = true;
  for (const DatasetFile& f : files) {
    Fd fd(f.path);
    if (fd.get() < 0) {
      r.why_unknown = f.path + ": " + std::strerror(errno);
      return r;
    }
    long long pages = -1;
    if (use_cachestat) {
      pages = cachestat_pages(fd.get());
      if (pages < 0) use_cachestat = false;  // ENOSYS on kernels before 6.5
    }
    if (!use_cachestat) pages = mincore_pages(fd.get(), f.size, r.why_unknown);
    if (pages < 0) return r;
    r.resident_bytes += std::min<std::uint64_t>(static_cast<std::uint64_t>(pages) * page, f.size);
    r.total_bytes += f.size;
  }
  r.known = true;
  r.method = use_cachestat ? "cachestat" : "mincore";
  return r;
}

std::string evict_from_page_cache(const std::vector<DatasetFile>& files) {
  for (const DatasetFile& f : files) {
    Fd fd(f.path);
    if (fd.get() < 0) return f.path + ": " + std::strerror(errno);
    ::fdatasync(fd.get());
    const int e = ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
    if (e != 0) return f.path + ": posix_fadvise: " + std::strerror(e);
  }
  return "";
}

bool memory_backed(const std::string& path) {
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0) return false;
  constexpr long kTmpfsMagic = 0x01021994;
  constexpr long kRamfsMagic = static_cast<long>(0x858458f6);
  return static_cast<long>(fs.f_type) == kTmpfsMagic || static_cast<long>(fs.f_type) == kRamfsMagic;
}

bool direct_reads_bypass_cache(bool direct_io, bool memory_fs, bool evicted,
                               const Residency& before) {
  if (!direct_io || memory_fs) return false;
  return !(evicted && before.known && before.total_bytes > 0 && before.fraction() >= 0.99);
}

std::string cache_state_label(bool direct_io, const Residency& before) {
  if (direct_io) return "cold-verified";
  if (!before.known) return "unverifiable";
  const double f = before.fraction();
  if (f <= 0.01) return "cold-verified";
  if (f >= 0.99) return "hot";
  return "warm";
}

}  // namespace trainready
