#pragma once
// The time a log line carries (issue 30 item 5: the first failure in time across ranks). Read
// from the prefixes nccl_line_prefix.h removes, outermost first, then from the head of the text:
//   RFC 3339 / ISO 8601      "2024-05-01T12:34:56.123456789Z ", "2024-05-01 12:34:56+02:00 "
//                            (kubectl logs --timestamps, docker logs -t, journald short-iso)
//   NCCL 2.26+               "[2025-09-09 23:51:24] ", "[2025-09-09 23:51:24.123456] "
//                            (src/debug.cc, NCCL_DEBUG_TIMESTAMP_FORMAT "[%F %T] ")
//   syslog (RFC 3164)        "Dec  2 04:00:00 host tag[123]: " (no year)
//   glog (PyTorch c10 logs)  "[E1202 10:00:00.123456 1234 ProcessGroupNCCL.cpp:1234] ",
//                            "I1202 10:00:00.123456 ..." (no year; LogMessage's prefix
//                            "<severity><mmdd> <hh:mm:ss.uuuuuu> <tid> <file>:<line>]")
// A zone offset ("Z", "+02:00") is applied, so stamps of hosts in different zones compare; a
// stamp without one is read as printed.
#include <string_view>

#include "core/line_time.h"

namespace trainready {

// The first timestamp of `raw` (a line as captured), unknown when it has none.
LineTime nccl_line_time(std::string_view raw);

}  // namespace trainready
