#include "parsers/nccl_line_time.h"

#include <string>

#include "parsers/nccl_line_prefix.h"

namespace trainready {
namespace {

constexpr int kDaysBefore[12] = {0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335};  // leap

bool digit(char c) { return c >= '0' && c <= '9'; }

// `n` digits at `i` as a number, -1 when they are not all digits.
int number(std::string_view s, std::size_t i, std::size_t n) {
  if (i + n > s.size()) return -1;
  int v = 0;
  for (std::size_t k = i; k < i + n; ++k) {
    if (!digit(s[k])) return -1;
    v = v * 10 + (s[k] - '0');
  }
  return v;
}

// "hh:mm:ss" at `i`, then an optional fraction (".123", ",123456789"): microseconds of the day;
// `end` is set past what was read. -1 when it is not a clock.
std::int64_t clock_at(std::string_view s, std::size_t i, std::size_t& end) {
  const int h = number(s, i, 2), m = number(s, i + 3, 2), sec = number(s, i + 6, 2);
  if (h < 0 || m < 0 || sec < 0 || s[i + 2] != ':' || s[i + 5] != ':' || h > 23 || m > 59 ||
      sec > 60)
    return -1;
  std::int64_t us = ((std::int64_t{h} * 60 + m) * 60 + sec) * 1000000;
  std::size_t k = i + 8;
  if (k < s.size() && (s[k] == '.' || s[k] == ',') && k + 1 < s.size() && digit(s[k + 1])) {
    std::int64_t frac = 0;
    int places = 0;
    for (++k; k < s.size() && digit(s[k]); ++k)
      if (places < 6) {
        frac = frac * 10 + (s[k] - '0');
        ++places;
      }
    while (places++ < 6) frac *= 10;
    us += frac;
  }
  end = k;
  return us;
}

LineTime make(int year, int month, int day, std::int64_t us_of_day) {
  LineTime t;
  if (month < 1 || month > 12 || day < 1 || day > 31 || us_of_day < 0) return t;
  t.year = year;
  t.us_of_year = (std::int64_t{kDaysBefore[month - 1]} + day - 1) * 86400 * 1000000 + us_of_day;
  return t;
}

// "YYYY-MM-DD[T ]hh:mm:ss[.frac][Z|+hh:mm|+hhmm]".
LineTime iso_at(std::string_view s) {
  const int y = number(s, 0, 4), mo = number(s, 5, 2), d = number(s, 8, 2);
  if (y < 0 || mo < 0 || d < 0 || s.size() < 19 || s[4] != '-' || s[7] != '-' ||
      (s[10] != 'T' && s[10] != ' '))
    return {};
  std::size_t end = 0;
  std::int64_t us = clock_at(s, 11, end);
  if (us < 0) return {};
  LineTime t = make(y, mo, d, us);
  if (!t.known()) return t;
  if (end < s.size() && (s[end] == '+' || s[end] == '-')) {  // to UTC
    const int oh = number(s, end + 1, 2);
    const std::size_t mm = end + 3 + (end + 3 < s.size() && s[end + 3] == ':' ? 1 : 0);
    const int om = number(s, mm, 2);
    if (oh >= 0 && om >= 0 && oh < 24 && om < 60) {
      const std::int64_t off = (std::int64_t{oh} * 60 + om) * 60 * 1000000;
      t.us_of_year += s[end] == '+' ? -off : off;
      if (t.us_of_year < 0) t = {};  // the previous year: not worth the arithmetic
    }
  }
  return t;
}

// "Dec  2 04:00:00".
LineTime syslog_at(std::string_view s) {
  static constexpr std::string_view kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
  if (s.size() < 15 || s[3] != ' ') return {};
  const std::size_t m = kMonths.find(s.substr(0, 3));
  if (m == std::string_view::npos || m % 3 != 0) return {};
  const int day = s[4] == ' ' ? number(s, 5, 1) : number(s, 4, 2);
  if (day < 0 || s[6] != ' ') return {};
  std::size_t end = 0;
  return make(0, static_cast<int>(m / 3) + 1, day, clock_at(s, 7, end));
}

// glog: "E1202 10:00:00.123456 ".
LineTime glog_at(std::string_view s) {
  if (s.size() < 21 || (s[0] != 'E' && s[0] != 'W' && s[0] != 'I' && s[0] != 'F') || s[5] != ' ')
    return {};
  const int mo = number(s, 1, 2), d = number(s, 3, 2);
  std::size_t end = 0;
  const std::int64_t us = clock_at(s, 6, end);
  if (mo < 0 || d < 0 || us < 0 || end < 15) return {};
  return make(0, mo, d, us);
}

LineTime stamp_at(std::string_view s) {
  if (!s.empty() && s[0] == '[') s.remove_prefix(1);
  if (s.empty()) return {};
  if (digit(s[0])) return iso_at(s);
  if (LineTime t = syslog_at(s); t.known()) return t;
  return glog_at(s);
}

}  // namespace

LineTime nccl_line_time(std::string_view raw) {
  std::string plain;
  if (raw.find('\x1b') != std::string_view::npos) raw = strip_colour(raw, plain);
  for (int k = 0; k < 8 && !raw.empty(); ++k) {
    if (LineTime t = stamp_at(raw); t.known()) return t;
    const std::size_t n = line_prefix_length(raw);
    if (n == 0 || n >= raw.size()) break;
    raw.remove_prefix(n);
  }
  return {};
}

}  // namespace trainready
