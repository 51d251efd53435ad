#pragma once
// Azure Instance Metadata Service JSON: the /metadata/instance shape (fields under "compute") or
// the /metadata/instance/compute shape (fields at the top). All IMDS values are strings.
#include <string>
#include <string_view>

#include "facts/node_facts.h"

namespace trainready {

ImdsInfo parse_imds(std::string_view json_text, const std::string& source);

}  // namespace trainready
