#pragma once
// /opt/azurehpc/component_versions.txt of Azure's HPC images -> component versions. Two formats
// by date (Azure/azhpc-images): a JSON object of strings, written with jq by
// utils/utilities.sh write_component_version (2024 on), and KEY=VALUE lines before it
// (`echo $1=$2 | tee -a`, 2021). Throws InputError naming the line on anything else.
#include <string>
#include <string_view>

#include "facts/node_facts.h"

namespace trainready {

ImageComponents parse_component_versions(std::string_view text, const std::string& source);

}  // namespace trainready
