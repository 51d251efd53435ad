// Fuzz target: NCCL's diagnostics lines ("host:pid NCCL DIAG ...", 2.31+), each input line read
// as the log reader reads it.
#include <string_view>

#include "core/text.h"
#include "fuzz/fuzz_target.h"
#include "parsers/nccl_diag_line.h"

TRAINREADY_FUZZ_TARGET(nccl_diag_line, text) {
  for (std::string_view line : trainready::split_lines(text)) {
    (void)trainready::is_ras_diag_refusal(line);
    const auto d = trainready::find_nccl_diag(line);
    if (!d) continue;
    // The views point into the line.
    if (d->body.data() < line.data() || d->body.data() + d->body.size() > line.data() + line.size())
      __builtin_trap();
    const trainready::NcclDiagReading r = trainready::read_nccl_diag_body(d->body);
    // What an edge keeps is text of the line, never more; a rank set is one, braced.
    if (r.edge.failure.size() + r.edge.path.size() + r.edge.handle.size() > d->body.size() ||
        r.result.ranks.size() > d->body.size() + 24 ||
        (!r.result.ranks.empty() && r.result.ranks[0] != '{'))
      __builtin_trap();
  }
}
