#pragma once
// Suppressions written on the resource itself, one form per input kind:
// - ARM / Bicep (@metadata): "metadata": {"trainready": ["<rule-id>: <justification>", ...]}
//   (the shape of checkov's metadata.checkov);
// - Terraform (.tf next to the plan): a comment in the resource block,
//   "# trainready:skip=<rule-id>:<justification>" (checkov's checkov:skip= form);
// - deployed state (az JSON tags, IMDS tagsList): a tag "trainready-skip" whose value is
//   "<rule-id>: <justification>[; <rule-id>: <justification>]".
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/located_json.h"
#include "facts/deployment_facts.h"

namespace trainready {

inline constexpr std::string_view kSuppressionTag = "trainready-skip";

void read_arm_suppressions(const nlohmann::json& resource, const LocatedJson& doc,
                           const std::string& ptr, const std::string& file, DeploymentResource* d);
// "<rule-id>: <justification>; ..." → appended to d->suppressions.
void add_suppression_list(std::string_view text, const Provenance& where, DeploymentResource* d);
// One "# trainready:skip=<rule>:<why>" comment line; false when the line is not one.
bool parse_tf_skip_comment(std::string_view line, std::string* rule, std::string* why);

}  // namespace trainready
