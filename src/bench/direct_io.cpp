// linux/stat.h first: its struct statx carries the direct-I/O alignment fields that glibc 2.36's
// headers lack; the call goes through syscall(2).
#include <linux/stat.h>
// NOLINT-next: keep the order above
#include "bench/direct_io.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace trainready {

DirectIoSupport direct_io_support(const std::string& path) {
  DirectIoSupport d;
  struct statx sx {};
  if (::syscall(SYS_statx, AT_FDCWD, path.c_str(), 0, STATX_DIOALIGN, &sx) == 0 &&
      (sx.stx_mask & STATX_DIOALIGN) != 0) {
    if (sx.stx_dio_offset_align == 0) {
      d.how = "the file system does not support direct I/O (statx reports no alignment)";
      return d;
    }
    d.supported = true;
    d.memory_alignment = std::max<std::uint32_t>(sx.stx_dio_mem_align, 512);
    d.offset_alignment = sx.stx_dio_offset_align;
    d.how = "statx: memory " + std::to_string(sx.stx_dio_mem_align) + " B, offsets " +
            std::to_string(sx.stx_dio_offset_align) + " B";
    return d;
  }
  // Older kernels: try it; conservative 4 KiB alignment.
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  if (fd < 0) {
    d.how = std::string("O_DIRECT open failed: ") + std::strerror(errno);
    return d;
  }
  ::close(fd);
  d.supported = true;
  d.memory_alignment = 4096;
  d.offset_alignment = 4096;
  d.how = "trial open (no statx alignment): 4096 B assumed";
  return d;
}

}  // namespace trainready
