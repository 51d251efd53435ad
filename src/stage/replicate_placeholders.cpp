// {rank} and {host} in --replicate's DST and --manifest (stage/replicate.h).
#include <string>

#include "core/input_error.h"
#include "stage/replicate.h"

namespace trainready::stage {

std::string expand_dst_placeholders(const std::string& dst, int rank, const std::string& host) {
  if (host.empty() || host.find('/') != std::string::npos || host == "." || host == "..")
    if (dst.find("{host}") != std::string::npos)
      throw InputError("DST", 0, "'" + host + "': the host name cannot be a directory name");
  std::string out;
  for (std::size_t i = 0; i < dst.size();) {
    if (dst.compare(i, 6, "{rank}") == 0) {
      out += std::to_string(rank);
      i += 6;
    } else if (dst.compare(i, 6, "{host}") == 0) {
      out += host;
      i += 6;
    } else if (dst[i] == '{' && dst.find('}', i) != std::string::npos) {
      throw InputError("DST", 0,
                       "'" + dst + "': only {rank} and {host} are replaced (" +
                           dst.substr(i, dst.find('}', i) - i + 1) + " is not)");
    } else {
      out += dst[i++];
    }
  }
  return out;
}

}  // namespace trainready::stage
