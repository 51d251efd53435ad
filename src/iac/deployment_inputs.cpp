#include "iac/deployment_inputs.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <system_error>

#include "core/input_error.h"
#include "core/located_json.h"
#include "core/root.h"
#include "core/text.h"
#include "iac/arm_template.h"
#include "iac/azure_state.h"
#include "iac/terraform_plan.h"

namespace trainready {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr std::size_t kMaxFileBytes = std::size_t{512} * 1024 * 1024;

struct Doc {
  std::string file;
  LocatedJson json;
  DeploymentInputKind kind = DeploymentInputKind::kOther;
  bool explicit_path = true;
};

// Bounded, and never blocks on a FIFO or a device (the project's one way to read a file).
std::string read_file(const std::string& path) {
  FileRead r = FsRoot("/").read_file(path, kMaxFileBytes);
  if (!r.ok()) throw InputError(path, 0, "cannot read: " + r.error);
  return std::move(r.data);
}

std::vector<std::pair<std::string, bool>> expand(const std::vector<std::string>& paths) {
  std::vector<std::pair<std::string, bool>> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (p != "-" && fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec);
      for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const auto name = it->path().filename().string();
        if (it->is_directory(ec) &&
            (name == ".terraform" || name == ".git" || name == "node_modules")) {
          it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file(ec) && it->path().extension() == ".json")
          found.push_back(it->path().lexically_normal().string());
      }
      if (ec) throw InputError(p, 0, "cannot read directory: " + ec.message());
      std::sort(found.begin(), found.end());
      for (auto& f : found) files.emplace_back(std::move(f), false);
    } else {
      files.emplace_back(p, true);
    }
  }
  return files;
}

std::string kind_expectation() {
  return "expected an ARM template or parameters file, a Terraform plan (terraform show -json), "
         "az vm/vmss JSON or an IMDS instance document";
}

}  // namespace

DeploymentInputKind classify_deployment_json(const json& doc) {
  if (looks_like_arm_parameters(doc)) return DeploymentInputKind::kArmParameters;
  if (looks_like_arm_template(doc)) return DeploymentInputKind::kArmTemplate;
  if (looks_like_terraform_plan(doc)) return DeploymentInputKind::kTerraformPlan;
  if (looks_like_imds(doc)) return DeploymentInputKind::kImds;
  if (looks_like_az_state(doc)) return DeploymentInputKind::kAzState;
  return DeploymentInputKind::kOther;
}

DeploymentFacts read_deployment_inputs(const std::vector<std::string>& paths,
                                       const DeploymentInputOptions& options) {
  DeploymentFacts out;
  out.hpc_images = options.hpc_images;
  std::vector<Doc> docs;
  for (auto& [file, named] : expand(paths)) {
    std::string text;
    if (file == "-") {
      std::ostringstream ss;
      ss << std::cin.rdbuf();
      text = ss.str();
    } else {
      text = read_file(file);
    }
    Doc d{file == "-" ? "<stdin>" : file, parse_located_json(text, file == "-" ? "<stdin>" : file)};
    d.kind = classify_deployment_json(d.json.value);
    d.explicit_path = named;
    if (d.kind == DeploymentInputKind::kOther) {
      if (named) throw InputError(d.file, 1, kind_expectation());
      out.notes.push_back(d.file + ": not a deployment file; skipped");
      continue;
    }
    docs.push_back(std::move(d));
  }
  if (docs.empty())
    throw InputError(paths.empty() ? "lint" : paths.front(), 0,
                     "no deployment JSON found: " + kind_expectation());
  ArmParameterValues params;
  for (const auto& f : options.parameter_files) {
    LocatedJson pj = parse_located_json(read_file(f), f);
    if (!looks_like_arm_parameters(pj.value) && !pj.value.contains("parameters"))
      throw InputError(
          f, 1, "expected an ARM parameters file (\"parameters\": {\"name\": {\"value\": ...}})");
    read_arm_parameters(pj, f, &params);
    out.files.push_back(f);
  }
  for (const auto& d : docs) {
    if (d.kind != DeploymentInputKind::kArmParameters) continue;
    read_arm_parameters(d.json, d.file, &params);
    out.files.push_back(d.file);
  }
  for (const auto& kv : options.parameters) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError("-p " + kv, 0, "expected name=value");
    json v = parse_embedded_json(kv.substr(eq + 1)).value_or(json(kv.substr(eq + 1)));
    params.values[to_lower(kv.substr(0, eq))] = v;
    params.unresolvable.erase(to_lower(kv.substr(0, eq)));
  }
  for (const auto& d : docs) {
    switch (d.kind) {
      case DeploymentInputKind::kArmTemplate:
        read_arm_template(d.json, d.file, params, &out);
        break;
      case DeploymentInputKind::kTerraformPlan: {
        std::string root = options.terraform_root;
        if (root.empty()) {
          root = fs::path(d.file).parent_path().string();
          if (root.empty()) root = ".";
        }
        TerraformSourceIndex idx = TerraformSourceIndex::scan(root);
        read_terraform_plan(d.json, d.file, idx, &out);
        break;
      }
      case DeploymentInputKind::kImds:
        read_imds_document(d.json, d.file, &out);
        break;
      case DeploymentInputKind::kAzState:
        read_az_state(d.json, d.file, &out);
        break;
      case DeploymentInputKind::kArmParameters:
      case DeploymentInputKind::kOther:
        continue;
    }
    out.files.push_back(d.file);
  }
  return out;
}

DeploymentFacts read_deployment_text(const std::string& text, const std::string& name) {
  DeploymentFacts out;
  LocatedJson doc = parse_located_json(text, name);
  switch (classify_deployment_json(doc.value)) {
    case DeploymentInputKind::kArmTemplate:
      read_arm_template(doc, name, {}, &out);
      break;
    case DeploymentInputKind::kArmParameters: {
      ArmParameterValues p;
      read_arm_parameters(doc, name, &p);
      break;
    }
    case DeploymentInputKind::kTerraformPlan:
      read_terraform_plan(doc, name, TerraformSourceIndex{}, &out);
      break;
    case DeploymentInputKind::kImds:
      read_imds_document(doc, name, &out);
      break;
    case DeploymentInputKind::kAzState:
      read_az_state(doc, name, &out);
      break;
    case DeploymentInputKind::kOther:
      throw InputError(name, 1, kind_expectation());
  }
  out.files.push_back(name);
  return out;
}

}  // namespace trainready
