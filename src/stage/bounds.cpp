#include "stage/bounds.h"

#include <sys/statvfs.h>

#include <limits>

#include "core/units.h"

namespace trainready::stage {

std::string chunk_size_problem(std::uint64_t chunk) {
  if (chunk == 0) return "a chunk size of 0 bytes";
  if (chunk > kMaxChunkBytes)
    return "a chunk size of " + std::to_string(chunk) + " bytes is above the largest, " +
           std::to_string(kMaxChunkBytes) + " bytes (4 GiB): each worker holds one chunk in memory";
  return "";
}

std::string entry_size_problem(const std::string& path, std::uint64_t size,
                               std::uint64_t dst_capacity) {
  if (size > kMaxEntryBytes)
    return path + ": listed with " + std::to_string(size) +
           " bytes, above the largest file staged (" + std::to_string(kMaxEntryBytes) +
           " bytes, Azure's largest blob, about 190.7 TiB): a damaged listing or a sparse file; "
           "not staged";
  if (dst_capacity != 0 && size > dst_capacity)
    return path + ": " + std::to_string(size) + " bytes (" +
           format_bytes_si(static_cast<double>(size)) +
           "), larger than the whole destination file system (" +
           format_bytes_si(static_cast<double>(dst_capacity)) + "); not staged";
  return "";
}

std::uint64_t filesystem_capacity(const std::string& dir) {
  struct statvfs v {};
  if (::statvfs(dir.c_str(), &v) != 0 || v.f_frsize == 0) return 0;
  const std::uint64_t blocks = v.f_blocks, unit = v.f_frsize;
  if (blocks > std::numeric_limits<std::uint64_t>::max() / unit)
    return std::numeric_limits<std::uint64_t>::max();
  return blocks * unit;
}

}  // namespace trainready::stage
