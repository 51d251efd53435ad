#pragma once
// ARM templates (JSON, Bicep-compiled ARM, languageVersion 2.0 with symbolic resources) and
// their parameter files → DeploymentFacts. Expressions are evaluated (iac/arm_expression.h);
// copy loops, conditions and nested deployments (inner and outer scope) are followed.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/located_json.h"
#include "facts/deployment_facts.h"

namespace trainready {

// Values for template parameters, from parameter files and -p name=value (later ones win).
struct ArmParameterValues {
  std::map<std::string, nlohmann::json> values;     // key: lower-case parameter name
  std::map<std::string, std::string> unresolvable;  // Key Vault references: name → why
  std::map<std::string, std::string> origin;        // where each value came from: file:line, -p
};

// True for a deployment parameters file ({"$schema": ".../deploymentParameters.json#", ...}).
bool looks_like_arm_parameters(const nlohmann::json& doc);
// True for a template ({"$schema": ".../deploymentTemplate.json#"} or "resources" +
// "contentVersion").
bool looks_like_arm_template(const nlohmann::json& doc);

// Where linked templates (templateLink) are found on disk.
struct ArmLinkOptions {
  // --template-uri-map URI=PATH: a URI, or a prefix of URIs ending in '/', and the file or
  // directory it stands for.
  std::vector<std::pair<std::string, std::string>> uri_map;
  bool read_linked = true;  // false: in-memory documents (fuzzing) never touch the disk
};

// Adds the values of a parameters file. Throws InputError (file:line) when it is not one.
void read_arm_parameters(const LocatedJson& doc, const std::string& file, ArmParameterValues* out);

// Appends the template's compute, network and placement resources to `out`.
// Checks every supplied value against its declaration in the template as ARM does (type,
// allowedValues, minValue/maxValue, minLength/maxLength); throws InputError naming the parameter,
// where its value came from and where it is declared.
void check_arm_parameters(const LocatedJson& doc, const std::string& file,
                          const ArmParameterValues& params);

// Linked templates are read from disk: `relativePath`, a `uri` built from
// deployment().properties.templateLink.uri (the parent's own directory), a file:// URI, or a URI
// named by `links`; one that cannot be found is a note and makes the deployment incomplete.
void read_arm_template(const LocatedJson& doc, const std::string& file,
                       const ArmParameterValues& params, DeploymentFacts* out,
                       const ArmLinkOptions& links = {});

}  // namespace trainready
