#pragma once
// `doctor --capture FILE`: fold a capture the user already has (ibstat, ibstatus, ibv_devinfo,
// lspci, ofed_info -s, nvidia-smi topo -m, IMDS JSON, an environment dump, a kernel log,
// ib_write_bw output, /opt/azurehpc/component_versions.txt, scontrol show node, sinfo -R,
// nvidia-smi [-q], ibdev2netdev, show_gids, mst status -v, dcgmi diag, nvidia-bug-report.log)
// into a node's facts.
#include <string>

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
  kScontrolNode,       // scontrol show node
  kSinfoReasons,       // sinfo -R
  kNvidiaSmi,          // nvidia-smi (the default table)
  kNvidiaSmiQuery,     // nvidia-smi -q
  kIbdev2netdev,       // ibdev2netdev
  kShowGids,           // show_gids
  kMstStatus,          // mst status -v
  kDcgmiDiag,          // dcgmi diag -r N
  kNvidiaBugReport,    // nvidia-bug-report.log
  kUnknown
};

CaptureKind capture_kind_from_name(const std::string& name);  // "ibstat", "lspci", ...
CaptureKind detect_capture_kind(std::string_view text);
std::string capture_kind_name(CaptureKind k);

// spec is FILE or KIND=FILE. Throws InputError (exit 2) on unreadable or malformed files.
void apply_capture(NodeFacts& node, const std::string& spec);

// A node with every fact missing, for `doctor --capture ...` without --root.
NodeFacts empty_capture_node(const std::string& label);

}  // namespace trainready
