#pragma once
// `fleet --slurm-health`: what a node's findings become in Slurm's hands. The reason line that
// names the finding (NHC's convention: one line, a fixed leader, then the check that failed),
// the node name Slurm knows this node by, and the `scontrol update` argv that drains it. The
// argv is run with execv (no shell), so nothing from an input is ever parsed as a command.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"

namespace trainready {

// Every reason starts with this, as NHC's start with "NHC:", so an admin (and a later run) can
// tell our drains from theirs.
inline constexpr std::string_view kDrainReasonLeader = "trainready:";
// Slurm 22.05 keeps a reason of 5,000 bytes and more (measured: scontrol show node gave it back
// whole) but shows it on one line in `scontrol show node` and in a column of `sinfo -R`
// (default "%20E", man sinfo), so the finding id comes first and the line is cut here.
inline constexpr std::size_t kDrainReasonMaxBytes = 256;

// "trainready: <rule-id> [<node>]: <message> (+N more: id, id)" in printable ASCII: control
// characters and bytes outside ASCII become '?', runs of whitespace one space, cut to
// kDrainReasonMaxBytes. `failing` is most severe first (the engine's order); not empty.
std::string drain_reason(const std::vector<Finding>& failing);

// The node name Slurm gave this process (SLURMD_NODENAME: set for HealthCheckProgram, Prolog
// and every task), else `fallback` (the host name). Throws InputError when the name could be
// read as more than one node: scontrol takes a hostlist, so "node[1-64]" or "a,b" would drain
// them all.
std::string slurm_node_name(const char* slurmd_nodename, const std::string& fallback);
// True for a name made only of letters, digits, '.', '-' and '_' (1 to 64 bytes, HOST_NAME_MAX),
// and not "ALL", which scontrol takes for every node.
bool is_single_node_name(std::string_view name);
// Why a name is not one node ("it holds a line break", "the character ';' is not allowed", ...);
// empty when it is.
std::string node_name_problem(std::string_view name);

// {scontrol, "update", "nodename=<node>", "state=drain", "reason=<reason>"}.
std::vector<std::string> drain_argv(const std::string& scontrol, const std::string& node,
                                    const std::string& reason);
// {scontrol, "update", "nodename=<node>", "state=resume"}.
std::vector<std::string> resume_argv(const std::string& scontrol, const std::string& node);
// The argv as a line a user can paste into a shell (each word single-quoted when it needs it).
std::string shell_line(const std::vector<std::string>& argv);

// scontrol's full path: PATH first, then the directories Slurm installs to. Slurm runs a
// HealthCheckProgram with SLURMD_NODENAME as its whole environment (no PATH; measured on
// 22.05), so the fallback list is what finds it there. Empty when there is none.
std::string find_scontrol(const char* path_env);

}  // namespace trainready
