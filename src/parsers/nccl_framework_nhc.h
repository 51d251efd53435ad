#pragma once
// What a node health checker printed inside a job's or a check's output: LBNL NHC's failure line,
// which Azure's AzNHC prints for its own checks, and the NCCL topology file a check's command
// forces. The check failed on the node itself, before or beside any NCCL line.
#include <optional>
#include <string_view>

#include "parsers/nccl_framework_bigrams.h"

namespace trainready::framework_lines {

// The check a health checker's failure line `t` (trimmed) names. LBNL NHC's die() logs "ERROR:
// $NAME:  Health check failed:  $*" (mej/nhc `nhc` @9c4a38c, line 55); AzNHC's checks begin the
// message with their function ("check_nccl_allreduce: NCCL allreduce, BUS BW ..."); AzNHC's
// distributed_nhc puts "host | " first. "" when the message names no check function but NHC's
// name is on the line; nothing when `t` is no such line.
// distributed_nhc's "host | ERROR: No results reported" reads as kNhcNoResultCheck.
std::optional<std::string_view> health_check_failure(std::string_view t, const Bigrams& bg);

// "NCCL_TOPO_FILE=<path>" when the command line `t` sets NCCL_TOPO_FILE to a file (mpirun -x,
// env, export), or nothing (not set, or set empty as a way to turn it off).
std::optional<std::string_view> topo_file_setting(std::string_view t, const Bigrams& bg);

}  // namespace trainready::framework_lines
