#include "iac/deployment_inputs.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <system_error>

#include "core/input_error.h"
#include "core/located_json.h"
#include "core/root.h"
#include "core/text.h"
#include "iac/arm_template.h"
#include "iac/azure_state.h"
#include "iac/parameter_values.h"
#include "iac/template_json.h"
#include "iac/terraform_plan.h"

namespace trainready {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr std::size_t kMaxFileBytes = kMaxDeploymentBytes;

struct Doc {
  std::string file;
  DeploymentJson json;
  DeploymentInputKind kind = DeploymentInputKind::kOther;
  bool explicit_path = true;
};

std::string too_large() {
  return "larger than " + std::to_string(kMaxFileBytes / (1024 * 1024)) +
         " MiB, not a deployment file (ARM itself refuses templates over 4 MB)";
}

// Bounded, and never blocks on a FIFO or a device (the project's one way to read a file). The
// size is checked before a byte is read.
std::string read_file(const std::string& path) {
  std::error_code ec;
  if (auto size = fs::file_size(path, ec); !ec && size > kMaxFileBytes)
    throw InputError(path, 0, too_large());
  FileRead r = FsRoot("/").read_file(path, kMaxFileBytes);
  if (!r.ok()) throw InputError(path, 0, "cannot read: " + r.error);
  return std::move(r.data);
}

// stdin, under the same bound as a file (read in chunks: /dev/zero costs the bound, once).
std::string read_stdin_bounded() {
  FileRead r = read_stdin(kMaxFileBytes);
  if (!r.ok()) {
    if (r.error.rfind("more than", 0) == 0) throw InputError("<stdin>", 0, too_large());
    throw InputError("<stdin>", 0, "cannot read: " + r.error);
  }
  return std::move(r.data);
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// lint reads JSON: what a deployment tool compiles or plans, not its sources. A source handed in
// gets the command that makes the JSON rather than a JSON syntax error at line 1.
void refuse_source_file(std::string_view text, const std::string& file) {
  const std::size_t first = text.find_first_not_of(" \t\r\n\xef\xbb\xbf");
  if (first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) return;
  if (ends_with(file, ".bicep") || ends_with(file, ".bicepparam"))
    throw InputError(file, 1,
                     "a Bicep source, not JSON: lint reads the ARM template Bicep compiles to; "
                     "run `az bicep build --file " +
                         file + "` (or `bicep build`) and lint the .json it writes");
  if (ends_with(file, ".tf") || ends_with(file, ".tfvars"))
    throw InputError(file, 1,
                     "a Terraform source, not JSON: lint reads a plan; run `terraform plan -out "
                     "tfplan && terraform show -json tfplan > plan.json` and lint plan.json (the "
                     ".tf files beside it are read for line numbers)");
}

DeploymentJson parse_deployment_json(std::string text, const std::string& file) {
  refuse_source_file(text, file);
  return parse_deployment_document(std::move(text), file);
}

std::vector<std::pair<std::string, bool>> expand(const std::vector<std::string>& paths,
                                                 std::vector<std::string>* notes) {
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
        if (!it->is_regular_file(ec) || it->path().extension() != ".json") continue;
        if (it->is_symlink(ec)) {
          // A link that leads out of the directory is not part of it: not read.
          std::error_code e2;
          const fs::path target = fs::weakly_canonical(it->path(), e2);
          const fs::path root = fs::weakly_canonical(p, e2);
          const auto rel = target.lexically_relative(root).string();
          if (e2 || rel.empty() || rel.rfind("..", 0) == 0) {
            notes->push_back(it->path().lexically_normal().string() +
                             ": a link out of the directory; not followed");
            continue;
          }
        }
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

// Length of "file:line: " at the front of an InputProblem's message.
std::size_t prefix_len(const InputProblem& e) {
  std::string p = e.file + (e.line > 0 ? ":" + std::to_string(e.line) : std::string()) + ": ";
  return e.message.rfind(p, 0) == 0 ? p.size() : 0;
}

std::string kind_expectation() {
  return "expected an ARM template or parameters file, a Terraform plan (terraform show -json), "
         "az vm/vmss JSON or an IMDS instance document";
}

}  // namespace

namespace {
void read_one(const Doc& d, const DeploymentInputOptions& options, const ArmParameterValues& params,
              const ArmLinkOptions& links, DeploymentFacts* out);
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
  for (auto& [file, named] : expand(paths, &out.notes)) {
    const std::string shown = file == "-" ? "<stdin>" : file;
    Doc d{shown, {}};
    try {
      // A template's text is kept and its resources parsed one at a time (iac/template_json.h);
      // another file's text lives only while it is parsed.
      d.json = parse_deployment_json(file == "-" ? read_stdin_bounded() : read_file(file), shown);
    } catch (const InputError& e) {
      // One bad file is reported (file:line) and the others are still linted; exit 2.
      out.input_errors.push_back(InputProblem{e.file(), e.line(), e.what()});
      continue;
    }
    d.kind = classify_deployment_json(d.json.json.value);
    d.explicit_path = named;
    if (d.kind == DeploymentInputKind::kOther) {
      if (named) {
        out.input_errors.push_back(InputProblem{d.file, 1, d.file + ":1: " + kind_expectation()});
        continue;
      }
      out.notes.push_back(d.file + ": not a deployment file; skipped");
      continue;
    }
    docs.push_back(std::move(d));
  }
  // Nothing read at all: the first error is the whole answer (stderr, exit 2).
  if (docs.empty() && !out.input_errors.empty()) {
    const InputProblem& e = out.input_errors.front();
    throw InputError(e.file, e.line, e.message.substr(std::min(e.message.size(), prefix_len(e))));
  }
  if (docs.empty())
    throw InputError(paths.empty() ? "lint" : paths.front(), 0,
                     "no deployment JSON found: " + kind_expectation());
  ArmParameterValues params;
  for (const auto& f : options.parameter_files) {
    const DeploymentJson parsed = parse_deployment_json(read_file(f), f);
    const LocatedJson& pj = parsed.json;
    if (!looks_like_arm_parameters(pj.value) && !pj.value.contains("parameters"))
      throw InputError(
          f, 1, "expected an ARM parameters file (\"parameters\": {\"name\": {\"value\": ...}})");
    read_arm_parameters(pj, f, &params);
    out.files.push_back(f);
  }
  for (const auto& d : docs) {
    if (d.kind != DeploymentInputKind::kArmParameters) continue;
    try {
      read_arm_parameters(d.json.json, d.file, &params);
    } catch (const InputError& e) {
      out.input_errors.push_back(InputProblem{e.file(), e.line(), e.what()});
      continue;
    }
    out.files.push_back(d.file);
  }
  // -p items as az reads them: name=value (converted by each template's declared type when
  // it is checked), @FILE, a parameters file, a JSON object.
  for (const auto& item : options.parameters) add_cli_parameter(item, &params);
  // One set of values for several templates: a value one of them does not declare is not
  // reported against the others.
  params.report_undeclared = std::count_if(docs.begin(), docs.end(), [](const Doc& d) {
                               return d.kind == DeploymentInputKind::kArmTemplate;
                             }) == 1;
  ArmLinkOptions links;
  for (const auto& m : options.template_uri_map) {
    auto eq = m.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == m.size())
      throw InputError("--template-uri-map " + m, 0, "expected URI=PATH");
    links.uri_map.emplace_back(m.substr(0, eq), m.substr(eq + 1));
  }
  for (const auto& d : docs) {
    try {
      read_one(d, options, params, links, &out);
    } catch (const InputError& e) {
      out.input_errors.push_back(InputProblem{e.file(), e.line(), e.what()});
      continue;
    }
    if (d.kind == DeploymentInputKind::kArmTemplate ||
        d.kind == DeploymentInputKind::kTerraformPlan || d.kind == DeploymentInputKind::kImds ||
        d.kind == DeploymentInputKind::kAzState)
      out.files.push_back(d.file);
  }
  return out;
}

namespace {
void read_one(const Doc& d, const DeploymentInputOptions& options, const ArmParameterValues& params,
              const ArmLinkOptions& links, DeploymentFacts* out_ptr) {
  DeploymentFacts& out = *out_ptr;
  {
    switch (d.kind) {
      case DeploymentInputKind::kArmTemplate:
        read_arm_template(d.json, d.file, params, &out, links);
        break;
      case DeploymentInputKind::kTerraformPlan: {
        std::string root = options.terraform_root;
        if (root.empty()) {
          root = fs::path(d.file).parent_path().string();
          if (root.empty()) root = ".";
        }
        TerraformSourceIndex idx = TerraformSourceIndex::scan(root);
        read_terraform_plan(d.json.json, d.file, idx, &out);
        break;
      }
      case DeploymentInputKind::kImds:
        read_imds_document(d.json.json, d.file, &out);
        break;
      case DeploymentInputKind::kAzState:
        read_az_state(d.json.json, d.file, &out);
        break;
      case DeploymentInputKind::kArmParameters:
      case DeploymentInputKind::kOther:
        break;
    }
  }
}
}  // namespace

DeploymentFacts read_deployment_text(const std::string& text, const std::string& name) {
  DeploymentFacts out;
  DeploymentJson parsed = parse_deployment_json(text, name);
  const LocatedJson& doc = parsed.json;
  switch (classify_deployment_json(doc.value)) {
    case DeploymentInputKind::kArmTemplate:
      read_arm_template(parsed, name, {}, &out, ArmLinkOptions{{}, false});
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
