#include "core/utc_time.h"

#include <ctime>

namespace trainready {

std::string utc_text(std::int64_t unix_s) {
  const std::time_t tt = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  if (::gmtime_r(&tt, &tm) == nullptr) return std::to_string(unix_s);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

}  // namespace trainready
