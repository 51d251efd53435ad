#pragma once
// `scontrol show node NAME` (one-line with -o, or the default indented form): the node's state
// and the reason someone set, which `fleet --slurm-health --drain` reads before it touches a
// node (LBNL NHC's node-mark-offline: a reason that is not ours is never overwritten).
#include <optional>
#include <string>
#include <string_view>

#include "facts/capture_facts.h"

namespace trainready {

struct ScontrolNode {
  std::string name;         // NodeName=
  std::string state;        // State=, e.g. "IDLE", "IDLE+DRAIN", "DOWN+NOT_RESPONDING"
  std::string reason;       // Reason= without its " [user@time]" suffix; empty when none is set
  std::string reason_user;  // the "user" of that suffix
  std::string reason_time;  // its "YYYY-MM-DDTHH:MM:SS"
  std::string gres;         // Gres= as configured, "(null)" read as empty
  std::string cfg_tres;     // CfgTRES=
  int line = 0;             // of NodeName=
  bool has_flag(std::string_view flag) const;  // a word of State, "DRAIN" in "IDLE+DRAIN"
};

// Throws InputError (source, line, what was expected) when the text is not one node's record:
// no NodeName= or State=, or more than one NodeName=.
ScontrolNode parse_scontrol_node(std::string_view text, const std::string& source);

// `scontrol show node` (all nodes, or one) as a `doctor --capture`: every record, with the
// GPUs of Gres= and of CfgTRES= counted. Throws InputError when no record has NodeName= and
// State=.
SlurmFacts parse_scontrol_nodes(std::string_view text, const std::string& source);

// The capture's signature: its first non-blank line starts with "NodeName=" (either form).
bool looks_like_scontrol_node(std::string_view text);

// GPUs in a Gres= value: "gpu:8" -> 8, "gpu:a40:1(S:0-1),shard:4" -> 1; nullopt when it names
// no GPU ("(null)", "").
std::optional<int> gres_gpu_count(std::string_view gres);
// gres/gpu= of a CfgTRES= value ("cpu=8,mem=1M,billing=8,gres/gpu=1" -> 1).
std::optional<int> tres_gpu_count(std::string_view tres);

}  // namespace trainready
