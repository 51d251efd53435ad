#pragma once
// What a launcher printed when it could not start, or lost, the processes on a remote node:
// mpirun / prterun (Open MPI's ORTE, PRRTE), the ssh it starts its daemons through, and pdsh
// (DeepSpeed's multi-node launcher). NCCL never ran on that node, so no NCCL line says why.
#include <optional>
#include <string_view>

#include "parsers/nccl_framework_bigrams.h"

namespace trainready::framework_lines {

struct LauncherLine {
  std::string_view launcher;  // "Open MPI", "PRRTE", "ssh", "pdsh"
  std::string_view detail;    // docs/rules/framework-launcher-failed.md lists them
};

// The launcher failure line `t` (trimmed; `bg`: its byte pairs) is, or nothing.
std::optional<LauncherLine> launcher_failure(std::string_view t, const Bigrams& bg);

// The launcher `t` runs when it is a launcher's command line (mpirun, mpiexec, prterun, pdsh),
// or nothing.
std::optional<std::string_view> launcher_command(std::string_view t, const Bigrams& bg);

}  // namespace trainready::framework_lines
