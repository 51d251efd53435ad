#pragma once
// Deployed state → DeploymentFacts: `az vm list -d`, `az vm show -d`, `az vmss show`,
// `az vmss list-instances` (az prints the SDK model without the "properties" wrapper; Azure
// Resource Graph keeps it: both are read), and IMDS instance documents gathered from nodes.
#include <string>

#include <nlohmann/json.hpp>

#include "core/located_json.h"
#include "facts/deployment_facts.h"

namespace trainready {

// True when the document is an IMDS instance (or compute) document.
bool looks_like_imds(const nlohmann::json& doc);
// True for an az / Resource Graph VM, scale-set or scale-set-instance object, or an array of them.
bool looks_like_az_state(const nlohmann::json& doc);

void read_imds_document(const LocatedJson& doc, const std::string& file, DeploymentFacts* out);
void read_az_state(const LocatedJson& doc, const std::string& file, DeploymentFacts* out);

}  // namespace trainready
