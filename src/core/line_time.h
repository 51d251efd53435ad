#pragma once
// When a log line was printed, from the timestamp it carries (a collector's or launcher's prefix,
// NCCL's own WARN stamp, PyTorch's glog head; src/parsers/nccl_line_time.h reads them): what
// orders failures on different ranks in time (issue 30 item 5).
#include <cstdint>
#include <string>

namespace trainready {

struct LineTime {
  int year = 0;  // 0: the stamp names no year (syslog "Dec  2", glog "E1202")
  // Microseconds into the year, days counted as in a leap year (a stamp without a year may fall
  // on 29 February): monotone within a year, the same reckoning for every stamp. -1: no stamp.
  std::int64_t us_of_year = -1;
  bool known() const { return us_of_year >= 0; }
  // "2024-05-01 12:34:56.123456" (or "05-01 12:34:56.123456" without a year); "" when unknown.
  std::string str() const;
};

// -1 when a is earlier than b, 1 when later, 0 when the same instant or not comparable (either
// unknown). Stamps are compared as printed: one log's collector (or one process) prints them on
// one clock; a year is compared only where both stamps name one.
int compare_line_time(const LineTime& a, const LineTime& b);

}  // namespace trainready
