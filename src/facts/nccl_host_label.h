#pragma once
// The host label of NCCL lines without their host:pid:tid head (an excerpt pasted without it):
// their streams and version lines are grouped under it, and it names no machine.
#include <string_view>

namespace trainready {

inline constexpr std::string_view kUnprefixedHost = "(unprefixed)";

}  // namespace trainready
