#pragma once
// `terraform show -json plan.out` (format_version 1.x) → DeploymentFacts. Each finding maps
// back to the resource address and, when the .tf sources are found, to the block and the line
// of the attribute.
#include <string>

#include <nlohmann/json.hpp>

#include "core/located_json.h"
#include "facts/deployment_facts.h"
#include "iac/terraform_source.h"

namespace trainready {

bool looks_like_terraform_plan(const nlohmann::json& doc);

// Throws InputError for an unsupported format_version major.
void read_terraform_plan(const LocatedJson& doc, const std::string& file,
                         const TerraformSourceIndex& sources, DeploymentFacts* out);

}  // namespace trainready
