#pragma once
// The NCCL Inspector profiler plugin's JSON output (NCCL's ext-profiler/inspector, 2.28.3-2.28.9;
// plugins/profiler/inspector, 2.29+): one JSON object per line and completed operation, with
// "header" (communicator id, rank, n_ranks, nnodes; comm_name since 2.30), "metadata" (format
// version "v4.0", hostname, pid) and "coll_perf" (coll, coll_sn, coll_msg_size_bytes,
// coll_exec_time_us, coll_timing_source since 2.29, coll_algobw_gbs, coll_busbw_gbs) or
// "p2p_perf". Files are <hostname>-pid<pid>.log in NCCL_INSPECTOR_DUMP_DIR. The Prometheus
// textfile mode (NCCL_INSPECTOR_PROM_DUMP=1) is not read here.
#include <string>
#include <string_view>
#include <vector>

#include "facts/collective_progress.h"

namespace trainready {

// Appends one series per (communicator, rank, operation, message size) to `out`. A line that
// is not JSON (a dump cut by the process ending) is noted in `notes`; a file with no readable
// operation throws InputError naming it.
void parse_nccl_inspector(std::string_view text, std::string_view source_name,
                          std::vector<InspectorSeries>& out, std::vector<std::string>& notes);

bool looks_like_nccl_inspector(std::string_view text);

}  // namespace trainready
