#include "core/host_name.h"

#include <unistd.h>
#include <climits>

namespace trainready {

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return {};
  return buf;
}

}  // namespace trainready
