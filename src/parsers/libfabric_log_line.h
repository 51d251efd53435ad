#pragma once
// One line of libfabric's own log (github.com/ofiwg/libfabric src/log.c), which the process of an
// OFI net plugin (aws-ofi-nccl) writes to the same stderr as NCCL's lines when FI_LOG_LEVEL is set
// (libfabric logs nothing by default: fi_log_init leaves the mask empty without it):
//   v1.5 .. v1.7    "libfabric:PROV:SUBSYS:FUNC():LINE<LEVEL> MSG"
//   v1.8 .. v1.13   "libfabric:PID:PROV:SUBSYS:FUNC():LINE<LEVEL> MSG"
//   v1.14           "libfabric:PID:TIME:PROV:SUBSYS:FUNC():LINE<LEVEL> MSG"
//   v1.15 ..        "libfabric:PID:TIME:PREFIX:PROV:SUBSYS:FUNC():LINE<LEVEL> MSG" (PREFIX is
//                   log_prefix, the utility provider's name while it queries a core provider,
//                   prov/util/src/util_attr.c: "...::efa:core:..." or "...:ofi_rxm:verbs:...")
// LINE is where the logging macro was called. LEVEL is one of warn, trace, info, debug
// (log_levels[]). Reading only: the judging is the knowledge base's.
#include <optional>
#include <string_view>

namespace trainready {

struct LibfabricLogLine {
  std::string_view provider;   // "efa", "efa;ofi_rxd", "verbs;ofi_rxm", "tcp", "shm", "core"
  std::string_view subsystem;  // "core", "fabric", "domain", "ep_ctrl", "ep_data", "av", "cq", ...
  std::string_view site;       // "FUNC():LINE", where libfabric's source printed it
  std::string_view level;      // "warn", "trace", "info", "debug"
  std::string_view message;    // after "<LEVEL> ", as printed
};

// `text` starts with "libfabric:" (a launcher prefix already stripped). nullopt when it is not a
// libfabric log line of one of the shapes above.
std::optional<LibfabricLogLine> read_libfabric_log_line(std::string_view text);

// Where a libfabric log line's head starts in `line`: at its start, or behind a collector's
// columns ("  | 2025-05-16T16:39:51.208-07:00libfabric:85:...", CloudWatch as pasted in
// aws/aws-ofi-nccl#889), within the first 256 characters; npos when there is none.
std::size_t find_libfabric_head(std::string_view line);

// libfabric v1.18.0 .. v1.18.3 print two EFA warnings without a newline
// (prov/efa/src/efa_user_info.c:329 and :337 @ v1.18.0, efa_user_info_should_support_hmem:
// "FI_HMEM cannot be supported because no compatible libraries were found." and "...FI_HMEM
// capability requires peer to peer support, which is disabled because FI_HMEM_P2P_DISABLED was
// set to 1/on/true."), so whatever the process writes next (the plugin's NCCL line, another
// libfabric line) is glued on. In a libfabric line, the position after the last such text that
// another writer's text follows (not libfabric's own next line or a collector's copy of it after
// a bar, which the libfabric reader splits itself); else npos.
std::size_t libfabric_unterminated_end(std::string_view line);

}  // namespace trainready
