// Fuzz target: the NCCL line normaliser, the record splitter's older / pasted shapes, and the
// timestamp reader that walks the same prefixes.
#include <string>

#include "fuzz/fuzz_target.h"
#include "parsers/nccl_line_prefix.h"
#include "parsers/nccl_line_time.h"
#include "parsers/nccl_log_record.h"

TRAINREADY_FUZZ_TARGET(nccl_line_prefix, text) {
  std::string scratch;
  const std::string_view line = trainready::normalize_nccl_line(text, scratch);
  if (line.size() > text.size()) __builtin_trap();
  const trainready::LineTime t = trainready::nccl_line_time(text);
  if (t.known() && (t.str().empty() || (t.year != 0 && (t.year < 0 || t.year > 9999))))
    __builtin_trap();
  trainready::NcclRecord r[4];
  const std::size_t n = trainready::split_nccl_records(line, r, 4);
  for (std::size_t i = 0; i < n; ++i) {
    // Every view points into the line it was read from.
    if (r[i].text.data() < line.data() ||
        r[i].text.data() + r[i].text.size() > line.data() + line.size())
      __builtin_trap();
  }
}
