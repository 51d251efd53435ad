#pragma once
// The sidecar suppressions file, for every input kind:
//   {"suppressions": [{"rule": "deploy-ib-spg-off", "resource": "computeVmss",
//                      "justification": "...", "expires": "2027-03-31"}]}
// `resource` matches a finding's resource (ARM name / symbolic name, Terraform address, VM
// name); "*" and trailing-"*" prefixes are allowed; absent = every resource. `rule` may be "*".
#include <string>
#include <vector>

#include "facts/suppression_entry.h"

namespace trainready {

// Throws InputError naming the file and line for malformed JSON, unknown keys, a missing rule
// or justification, or a date that is not YYYY-MM-DD.
std::vector<SuppressionEntry> parse_suppression_file(const std::string& text,
                                                     const std::string& file);

}  // namespace trainready
