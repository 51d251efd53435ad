#pragma once
// Whether a file can be read with O_DIRECT, and with which alignment (statx STATX_DIOALIGN on
// Linux 6.1+, else a trial open). File systems that refuse direct I/O (tmpfs, some FUSE mounts)
// are read buffered, after evicting the files from the page cache.
#include <cstdint>
#include <string>

namespace trainready {

struct DirectIoSupport {
  bool supported = false;
  std::uint32_t memory_alignment = 4096;  // buffers
  std::uint32_t offset_alignment = 512;   // offsets and lengths
  std::string how;                        // "statx", "trial open", or why not supported
};

DirectIoSupport direct_io_support(const std::string& path);

}  // namespace trainready
