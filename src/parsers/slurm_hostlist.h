#pragma once
// Slurm hostlist expressions as sinfo, squeue and scontrol print them: "gpu[004-009]",
// "node[01-04,07],login1", "a[1-2]b[3-4]" (slurm/src/common/hostlist.c). Zero padding is kept
// ("gpu[004-006]" -> gpu004 gpu005 gpu006).
#include <string>
#include <string_view>
#include <vector>

namespace trainready {

// Throws InputError(source, line, ...) on an unbalanced bracket, a bad range, or an expansion
// past kMaxHostlistNames names (a typo such as "n[1-99999999]" is not a cluster).
std::vector<std::string> expand_hostlist(std::string_view expr, const std::string& source,
                                         int line);

inline constexpr std::size_t kMaxHostlistNames = 100000;

}  // namespace trainready
