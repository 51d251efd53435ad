#pragma once
// One line of UCX's own log (github.com/openucx/ucx src/ucs/debug/log.c, ucs_log_default_handler),
// which a process using UCX writes to the same output as NCCL's lines: MPI's UCX transport (an
// mpirun of Open MPI or HPC-X with the ucx pml) or the HPC-X net plugin's UCX p2p transport. UCX
// prints WARN and above by default (UCX_LOG_LEVEL, global_opts.c: log_component WARN):
//   v1.5 ..  "[SEC.USEC] [HOST:PID:THREAD] FILE:LINE UCX  LEVEL MSG"   (the file right-aligned)
//   v1.5 ..  "[SEC.USEC] FILE:LINE UCX  LEVEL MSG"                     (before the log is set up)
//   v1.11 .. "[SEC.USEC] [THREAD] FILE:LINE COMPONENT LEVEL MSG"       (the short form)
//   an excerpt "FILE:LINE UCX  LEVEL MSG" (the head cut off as pasted: ai-dynamo/dynamo#1209)
// LEVEL is one of ucs_log_level_names (ERROR, WARN, DIAG, INFO, DEBUG, TRACE...). A fatal error
// (ucs_fatal, a failed ucs_assert_always: src/ucs/debug/assert.{h,c}) goes through
// ucs_log_fatal_error in another shape, read here as LEVEL "FATAL", component "UCX":
//   v1.3 ..  "[HOST:PID  :THREAD:TID] FILE:LINE MSG"        (PID "%-5d"; THREAD a number, or from
//                                                            1.11 a thread's name: "a" async)
//   v1.5.x   "[HOST:PID  :THREAD:TID] FILE:LINE UCX MSG"    (assert.c "%13s:%-4u UCX %s")
// with MSG "Fatal: ..." (ucs_fatal), "Assertion `EXPR' failed..." or the text of a log call as
// severe as UCX_LOG_LEVEL_TRIGGER (fatal by default; log.c ucs_log_default_handler; v1.3 - v1.5
// print its level first, "FATAL: ..."), e.g. mlx5's "Transport retry count exceeded on
// mlx5_0:1/IB ..." (uct/ib/mlx5/ib_mlx5_log.c), one line per line of the message. FILE is one of
// UCX's C or C++ sources.
// Reading only: the judging is the rules'.
#include <optional>
#include <string_view>

namespace trainready {

struct UcxLogLine {
  std::string_view component;  // "UCX", or a module's log component
  std::string_view site;       // "ucp_context.c:1123", where UCX's source printed it
  std::string_view level;      // "WARN", "ERROR", ...
  std::string_view message;    // after the level, as printed
};

// `text` is a trimmed line (a launcher prefix already stripped). nullopt when it is not a UCX
// log line of one of the shapes above; without the head, only with UCX's own component name.
std::optional<UcxLogLine> read_ucx_log_line(std::string_view text);

}  // namespace trainready
