#pragma once
// ARM templates (JSON, Bicep-compiled ARM, languageVersion 2.0 with symbolic resources) and
// their parameter files → DeploymentFacts. Expressions are evaluated (iac/arm_expression.h);
// copy loops, conditions and nested deployments (inner and outer scope) are followed.
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "core/located_json.h"
#include "facts/deployment_facts.h"

namespace trainready {

// Values for template parameters, from parameter files and -p name=value (later ones win).
struct ArmParameterValues {
  std::map<std::string, nlohmann::json> values;     // key: lower-case parameter name
  std::map<std::string, std::string> unresolvable;  // Key Vault references: name → why
};

// True for a deployment parameters file ({"$schema": ".../deploymentParameters.json#", ...}).
bool looks_like_arm_parameters(const nlohmann::json& doc);
// True for a template ({"$schema": ".../deploymentTemplate.json#"} or "resources" +
// "contentVersion").
bool looks_like_arm_template(const nlohmann::json& doc);

// Adds the values of a parameters file. Throws InputError (file:line) when it is not one.
void read_arm_parameters(const LocatedJson& doc, const std::string& file, ArmParameterValues* out);

// Appends the template's compute, network and placement resources to `out`.
void read_arm_template(const LocatedJson& doc, const std::string& file,
                       const ArmParameterValues& params, DeploymentFacts* out);

}  // namespace trainready
