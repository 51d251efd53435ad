#pragma once
// What a node health checker printed inside a job's or a check's output: LBNL NHC's failure line,
// which Azure's AzNHC prints for its own checks, distributed_nhc's per-node lines, and the NCCL
// topology file a command line sets. The check failed on the node itself, before or beside any
// NCCL line.
#include <optional>
#include <string_view>

#include "facts/nccl_framework_facts.h"
#include "parsers/nccl_framework_bigrams.h"

namespace trainready::framework_lines {

// The failure `t` (trimmed) states, without `where` and `text`, or nothing. NHC's name must be
// on the line before "Health check failed:" ("ERROR:  nhc:  ...", "ERROR:  nhc-cron:  ...") or
// the line be detached mode's "ERROR Health check failed:  ...": load balancers and service
// meshes print the same words.
std::optional<HealthCheckFailure> health_check_failure(std::string_view t, const Bigrams& bg);

// The NCCL_TOPO_FILE a command line `t` sets (after a blank or at its start: "-x
// NCCL_TOPO_FILE=/x.xml", "export NCCL_TOPO_FILE=\"/a b.xml\""); "" when it sets it empty.
std::optional<TopoFileSetting> topo_file_setting(std::string_view t, const Bigrams& bg);

}  // namespace trainready::framework_lines
