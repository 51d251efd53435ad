#include "core/line_time.h"

#include <cstdio>

namespace trainready {

namespace {
// Days before each month in a leap year: a stamp without a year may fall on 29 February, so the
// offsets of a year that names none are a leap year's (one day late after February in other
// years, the same for every stamp of one log).
constexpr int kDaysBefore[12] = {0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335};
}  // namespace

std::string LineTime::str() const {
  if (!known()) return "";
  std::int64_t us = us_of_year;
  const std::int64_t day_us = std::int64_t{86400} * 1000000;
  const int day = static_cast<int>(us / day_us);
  us %= day_us;
  int month = 11;
  while (month > 0 && kDaysBefore[month] > day) --month;
  const int mday = day - kDaysBefore[month] + 1;
  const int h = static_cast<int>(us / 3600000000);
  const int m = static_cast<int>(us / 60000000 % 60);
  const int s = static_cast<int>(us / 1000000 % 60);
  const int frac = static_cast<int>(us % 1000000);
  char buf[64];
  if (year > 0)
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d %02d:%02d:%02d.%06d", year, month + 1, mday, h,
                  m, s, frac);
  else
    std::snprintf(buf, sizeof buf, "%02d-%02d %02d:%02d:%02d.%06d", month + 1, mday, h, m, s, frac);
  return buf;
}

int compare_line_time(const LineTime& a, const LineTime& b) {
  if (!a.known() || !b.known()) return 0;
  if (a.year > 0 && b.year > 0 && a.year != b.year) return a.year < b.year ? -1 : 1;
  if (a.us_of_year == b.us_of_year) return 0;
  return a.us_of_year < b.us_of_year ? -1 : 1;
}

}  // namespace trainready
