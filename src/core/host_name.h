#pragma once
#include <string>

namespace trainready {

// This machine's host name as gethostname(2) gives it, "" when it cannot be read. Callers pick
// their own fallback (a report's "unknown", Slurm's short name up to the first dot).
std::string host_name();

}  // namespace trainready
