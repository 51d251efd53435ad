#pragma once
// One quoted log line: what NCCL (or the framework) printed, and where.
#include <string>
#include <utility>

#include "core/fact.h"
#include "core/line_time.h"

namespace trainready {

struct LogLine {
  LogLine() = default;
  LogLine(std::string t, Provenance w, LineTime at = {})
      : text(std::move(t)), where(std::move(w)), time(at) {}
  std::string text;  // the message, trimmed to a readable length
  Provenance where;  // file and line
  LineTime time;     // the timestamp the line carries, unknown when it has none
};

}  // namespace trainready
