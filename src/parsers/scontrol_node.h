#pragma once
// `scontrol show node NAME` (one-line with -o, or the default indented form): the node's state
// and the reason someone set, which `fleet --slurm-health --drain` reads before it touches a
// node (LBNL NHC's node-mark-offline: a reason that is not ours is never overwritten).
#include <string>
#include <string_view>

namespace trainready {

struct ScontrolNode {
  std::string name;    // NodeName=
  std::string state;   // State=, e.g. "IDLE", "IDLE+DRAIN", "DOWN+NOT_RESPONDING"
  std::string reason;  // Reason= without its " [user@time]" suffix; empty when none is set
  bool has_flag(std::string_view flag) const;  // a word of State, "DRAIN" in "IDLE+DRAIN"
};

// Throws InputError (source, line, what was expected) when the text is not one node's record:
// no NodeName= or State=, or more than one NodeName=.
ScontrolNode parse_scontrol_node(std::string_view text, const std::string& source);

}  // namespace trainready
