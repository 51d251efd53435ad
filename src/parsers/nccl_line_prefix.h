#pragma once
// The shapes a NCCL log line arrives in, brought back to the line NCCL wrote (issue 30 item 3).
// A line is read as it was captured: behind a launcher's or a collector's prefix, coloured,
// with a CR left over. What each prefix looks like, and where it comes from:
//   mpirun --tag-output      "[1,0]<stdout>:"          Open MPI orte/iof (iof_base_output.c)
//   mpirun --timestamp-output "Wed Jan 24 16:28:44 2018[1,0]<stdout>:" (ctime(3) before the tag,
//                            or before "<stdout>:" alone; the same file); Open MPI 5's PMIx
//                            "[Wed Jan 24 16:28:44 2018][1,0]<stdout>: " (src/common/pmix_iof.c)
//   srun --label             "0: ", "  12: "           Slurm srun(1) --label
//   torchrun --tee/redirects "[rank0]:", "[default0]:" torch/distributed/elastic/multiprocessing
//                                                      (tail_log.py: "[{name}{rank}]:")
//   kubectl logs --prefix    "[pod/NAME/CONTAINER] "   kubectl/pkg/cmd/logs/logs.go
//   kubectl logs --timestamps, docker logs -t, journald --output=short-iso, rsyslog:
//                            "2024-05-01T12:34:56.123456789Z " (RFC 3339, with or without
//                            fraction and zone; a space instead of the T)
//   CRI container log file   "2024-05-01T12:34:56.123456789Z stderr F " (containerd, CRI-O:
//                            /var/log/pods; kubernetes/cri-api runtime/v1/constants.go)
//   Docker json-file log     {"log":"text\n","stream":"stderr","time":"..."} (one JSON object
//                            a line, /var/lib/docker/containers; moby daemon/logger/
//                            jsonfilelog): the "log" string, decoded
//   Markdown / e-mail quote  "> " (a log quoted in an issue or a reply)
//   CloudWatch Logs console  "  | 2025-05-16T16:39:51.208-07:00 | " (a row copied from the
//                            console's table: a column edge, the time, another edge)
//   syslog / journalctl      "Dec  2 04:00:00 host tag[123]: " (RFC 3164 header)
//   Ray workers              "(RayWorkerWrapper pid=50232, ip=10.1.0.67) " (ray log_monitor.py)
//   NCCL 2.26+ itself        "[2025-09-09 23:51:24] " on WARN lines (src/debug.cc,
//                            NCCL_DEBUG_TIMESTAMP_FORMAT "[%F %T] ", "%Nf" for subseconds)
// Colour: ANSI SGR sequences ("\x1b[32m", "\x1b[1;31m", "\x1b[0m") that loggers add; other
// control sequences are kept (the reporters escape them). A colour code at the start of a line
// whose ESC byte was lost (copied from a rendered page or a web console: "[0m host:1:2 ...")
// is a prefix too. CRLF: the CR a Windows editor or a serial console leaves at the end.
#include <string>
#include <string_view>

namespace trainready {

// The line without the prefixes above (any number, in any order), colour codes or trailing CR.
// Returns `line` itself (a view into it) when there is nothing to remove, else a view into
// `scratch`, valid until the next call with the same scratch. Never longer than `line`.
std::string_view normalize_nccl_line(std::string_view line, std::string& scratch);

// Whether a prefix above can start with `c` ('[', '(', ' ', '>', '|', '`', a digit, 'A'-'T', 'W'):
// a line that starts otherwise (a host name, "NCCL") has none, told without a call
// (line_prefix_length itself asks this first). A Docker json-file line ('{') is decoded by
// normalize_nccl_line, not cut.
inline bool line_prefix_may_start(char c) {
  return c == '[' || c == '(' || c == ' ' || c == '>' || c == '|' || c == '`' ||
         (c >= '0' && c <= '9') || (c >= 'A' && c <= 'T') || c == 'W';
}

// How many leading bytes of `line` are one launcher / collector / timestamp prefix (0: none).
std::size_t line_prefix_length(std::string_view line);

// Whether `line` is shaped as a Docker json-file log line: a JSON object whose first key is "log".
inline bool is_docker_json_log(std::string_view line) {
  return line.size() > 9 && line.substr(0, 7) == R"({"log":)";
}

// A Docker json-file log line ({"log":"...","stream":...}) as the line the program wrote: the
// "log" string decoded, without its newline, as a view into `scratch`; any other line as it is.
std::string_view docker_json_log(std::string_view line, std::string& scratch);

// The line without its colour codes (SGR), as a view into `scratch`.
std::string_view strip_colour(std::string_view line, std::string& scratch);

}  // namespace trainready
