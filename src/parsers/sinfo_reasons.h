#pragma once
// `sinfo -R` (--list-reasons): one row per reason with the nodes it holds down or drained,
// "REASON USER TIMESTAMP NODELIST" (default format "%20E %9u %19H %N"). The node list is a
// Slurm hostlist, expanded here; a reason is cut at the column's width (20 characters).
#include <string>
#include <string_view>

#include "facts/capture_facts.h"

namespace trainready {

// Throws InputError naming the line when the header is missing or a row has no node list.
SlurmFacts parse_sinfo_reasons(std::string_view text, const std::string& source);

// First non-blank line is the header "REASON ... NODELIST".
bool looks_like_sinfo_reasons(std::string_view text);

}  // namespace trainready
