#pragma once
// `doctor --capture FILE`: fold what the user already has into a node's facts: one capture
// (ibstat, ibstatus, ibv_devinfo, lspci, ofed_info -s, nvidia-smi topo -m, IMDS JSON, an
// environment dump, a kernel log, ib_write_bw output, /opt/azurehpc/component_versions.txt,
// /etc/nccl.conf, scontrol show node, sinfo -R, nvidia-smi [-q], ibdev2netdev, show_gids,
// mst status -v, dcgmi diag, nvidia-bug-report.log), or a pasted terminal session holding
// several of them with prompts and command lines (parsers/pasted_session.h cuts it; each section
// is read by its command line, or by its content when it has none).
//
// Adding a kind: a CaptureKind value, one row of kKinds in captures.cpp (name, the commands
// that print it, the line that starts its output) and one case of apply_kind().
#include <string>
#include <string_view>

#include "facts/node_facts.h"

namespace trainready {

enum class CaptureKind {
  kIbstat,
  kIbstatus,
  kIbvDevinfo,
  kLspci,
  kOfedInfo,
  kNvidiaSmiTopo,
  kImds,
  kEnv,
  kKernelLog,          // dmesg / journalctl -k / kern.log: Xid events
  kIbWriteBw,          // perftest ib_write_bw output
  kComponentVersions,  // /opt/azurehpc/component_versions.txt
  kNcclConf,           // /etc/nccl.conf (KEY=VALUE)
  kScontrolNode,       // scontrol show node
  kSinfoReasons,       // sinfo -R
  kNvidiaSmi,          // nvidia-smi (the default table)
  kNvidiaSmiQuery,     // nvidia-smi -q
  kIbdev2netdev,       // ibdev2netdev
  kShowGids,           // show_gids
  kMstStatus,          // mst status -v
  kDcgmiDiag,          // dcgmi diag -r N
  kNvidiaBugReport,    // nvidia-bug-report.log
  kHealthagent,        // CycleCloud healthagent `health -s` (JSON)
  kUnknown
};

CaptureKind capture_kind_from_name(const std::string& name);  // "ibstat", "lspci", ...
// The kind of a whole capture, from its first meaningful line (and whole-text signatures).
CaptureKind detect_capture_kind(std::string_view text);
std::string capture_kind_name(CaptureKind k);
// The kind a command prints ("sudo ibstat mlx5_0" -> kIbstat, "dmesg -T | grep -i xid" ->
// kKernelLog); kUnknown when none.
CaptureKind capture_kind_of_command(std::string_view command);
// The kinds doctor reads, for messages: "ibstat, ibstatus, ...".
std::string capture_kind_list();

// spec is FILE, KIND=FILE or "-" (standard input). A file of several sections is read section
// by section; what each section was read as (or why not) goes to node.capture_sections.
// Throws InputError (exit 2) on unreadable files, binary data, a KIND=FILE that is not KIND, and
// a file of which nothing is known.
void apply_capture(NodeFacts& node, const std::string& spec);

// A node with every fact missing, for `doctor --capture ...` without --root.
NodeFacts empty_capture_node(const std::string& label);

}  // namespace trainready
