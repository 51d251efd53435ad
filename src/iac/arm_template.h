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
#include "iac/parameter_values.h"
#include "iac/template_json.h"

namespace trainready {

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

// Appends the template's compute, network and placement resources to `out`. Every supplied
// value is first checked against its declaration (check_arm_parameters): what is wrong with one
// goes to out->parameter_problems, Key Vault references to out->notes, and such values are
// unknown to the template's expressions.
// Linked templates are read from disk: `relativePath`, a `uri` built from
// deployment().properties.templateLink.uri (the parent's own directory), a file:// URI, or a URI
// named by `links`; one that cannot be found is a note and makes the deployment incomplete.
void read_arm_template(const LocatedJson& doc, const std::string& file,
                       const ArmParameterValues& params, DeploymentFacts* out,
                       const ArmLinkOptions& links = {});
// The same for a template read by parse_deployment_document: its deferred resources are parsed
// one at a time, and each tree is dropped once the resource is read.
void read_arm_template(const DeploymentJson& doc, const std::string& file,
                       const ArmParameterValues& params, DeploymentFacts* out,
                       const ArmLinkOptions& links = {});

}  // namespace trainready
