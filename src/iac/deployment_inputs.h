#pragma once
// Reads the paths given to `lint` — files or directories of ARM templates and parameter files,
// Terraform plan JSON, az CLI JSON and IMDS documents — into one DeploymentFacts. The kind of
// each file is told from its shape, not its name.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/deployment_facts.h"

namespace trainready {

struct DeploymentInputOptions {
  std::vector<std::string> parameter_files;   // --parameters FILE (ARM)
  std::vector<std::string> parameters;        // -p name=value (ARM), applied last
  std::string terraform_root;                 // --tf-root DIR; default: the plan's directory
  std::vector<std::string> hpc_images;        // --hpc-image ID
  std::vector<std::string> template_uri_map;  // --template-uri-map URI=PATH (linked templates)
};

enum class DeploymentInputKind {
  kArmTemplate,
  kArmParameters,
  kTerraformPlan,
  kAzState,
  kImds,
  kOther
};

// What a JSON document is, from its shape.
DeploymentInputKind classify_deployment_json(const nlohmann::json& doc);

// Throws InputError (exit 2) for a file that cannot be read, malformed JSON (file, line,
// column) or a named file of no known kind; files found by walking a directory that are of no
// known kind are skipped with a note.
DeploymentFacts read_deployment_inputs(const std::vector<std::string>& paths,
                                       const DeploymentInputOptions& options);

// Lints one in-memory document (fuzz targets and tests): the kind is detected as above.
DeploymentFacts read_deployment_text(const std::string& text, const std::string& name);

}  // namespace trainready
