#pragma once
// perftest's `ib_write_bw` output (linux-rdma/perftest) -> one IbWriteBwRun per run in the text
// (a file may hold several, one per HCA as AzNHC runs them). Parsed by header words: the table is
// "#bytes #iterations BW peak[UNIT] BW average[UNIT] MsgRate[Mpps]" with UNIT Gb/sec
// (--report_gbits), MB/sec or MiB/sec by version. Throws InputError naming the line when the text
// holds no such table or a row is malformed.
#include <string>
#include <string_view>

#include "facts/node_facts.h"

namespace trainready {

IbWriteBwFacts parse_ib_write_bw(std::string_view text, const std::string& source);

bool looks_like_perftest(std::string_view text);

}  // namespace trainready
