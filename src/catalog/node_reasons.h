#pragma once
// What a node health reason means: a Slurm drain reason, or the check a node health checker
// (LBNL NHC, Azure's AzNHC) names when it fails ("Health check failed:  check_hw_ib: ..."),
// matched by a substring of it. Knowledge with its source, shared by the Slurm rule and the
// log rule that reads health checks' lines.
#include <string_view>

namespace trainready {

struct NodeReasonMeaning {
  std::string_view match;  // matched case-insensitively anywhere in the reason
  std::string_view meaning;
  std::string_view fix;
  std::string_view source;
};

// The first entry whose match is in `reason` (the NHC checks come before Slurm's own reasons,
// whose words an NHC message may contain), or nothing. With `truncated` (sinfo cut the reason at
// its column width), an entry that starts with what is left matches too.
const NodeReasonMeaning* node_reason_meaning(std::string_view reason, bool truncated = false);

}  // namespace trainready
