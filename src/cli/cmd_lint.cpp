// `trainready lint PATH...`: lint deployment definitions (ARM / Bicep-compiled ARM, Terraform
// plan JSON) and deployed state (az JSON, IMDS documents) for the traps that break multi-node
// training.
#include <malloc.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/judge.h"
#include "cli/output.h"
#include "core/input_error.h"
#include "core/root.h"
#include "engine/suppressions.h"
#include "iac/deployment_inputs.h"
#include "iac/suppression_file.h"

namespace trainready {
namespace {

constexpr const char* kDefaultSuppressions = ".trainready-suppressions.json";

struct LintArgs {
  std::vector<std::string> paths;
  DeploymentInputOptions inputs;
  std::string suppressions;
  std::string today;  // --today, for reproducible expiry checks
  SharedFlags flags;
};

std::string utc_today() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d", &tm);
  return buf;
}

std::vector<SuppressionEntry> load_suppressions(const std::string& path) {
  std::string file = path;
  if (file.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(kDefaultSuppressions, ec)) return {};
    file = kDefaultSuppressions;
  }
  FileRead r = FsRoot("/").read_file(file, kLargeFileLimit);
  if (!r.ok()) throw InputError(file, 0, "cannot read the suppressions file: " + r.error);
  return parse_suppression_file(r.data, file);
}

int run_lint(const LintArgs& a) {
  a.flags.check();
  if (!a.today.empty() && (a.today.size() != 10 || a.today[4] != '-' || a.today[7] != '-'))
    throw InputError("--today", 0, "expected YYYY-MM-DD");
  std::vector<SuppressionEntry> entries = load_suppressions(a.suppressions);
  DeploymentFacts facts = read_deployment_inputs(a.paths, a.inputs);
  Report r = start_report("lint", a.flags);
  r.evaluation = run_rules(r, a.flags, &facts);
  SuppressionOutcome sup =
      apply_suppressions(&r.evaluation, facts, entries, a.today.empty() ? utc_today() : a.today);
  auto lint = std::make_shared<LintInputs>();
  lint->files = std::move(facts.files);
  lint->resources = facts.resources.size();
  lint->input_notes = std::move(facts.notes);
  lint->suppressed = std::move(sup.suppressed);
  lint->suppression_warnings = std::move(sup.warnings);
  lint->input_errors = facts.input_errors;
  r.lint = std::move(lint);
  // The findings own what they quote: the facts are given back before the report is rendered,
  // so the two never peak together (issue 35: a 10,000-resource template's records are ~15 MiB).
  const std::size_t input_errors = facts.input_errors.size();
  facts = DeploymentFacts{};
  // Freed small blocks stay with the allocator (and resident) until trimmed: without this the
  // render ran on top of the facts' ~4 MiB of freed strings (10,000 resources).
#ifdef __GLIBC__
  malloc_trim(0);
#endif
  finish_report(r, a.flags.fail_on_severity());
  if (input_errors > 0) {
    // What was read is still reported; the files that were not make the run an input error.
    const std::size_t n = input_errors;
    const std::string unread = std::to_string(n) + (n == 1 ? " file" : " files") + " not read";
    if (r.verdict.status != VerdictStatus::kNotReady) {
      r.verdict.status = VerdictStatus::kIncomplete;
      r.verdict.line = "INCOMPLETE: " + unread + " (listed under \"Not read\"); " + r.verdict.line;
    } else {
      r.verdict.line += "; " + unread;
    }
    r.exit_code = 2;
  }
  return emit_report(r, a.flags);
}

}  // namespace

Runner add_lint_command(CLI::App& app) {
  auto a = std::make_shared<LintArgs>();
  CLI::App* c = app.add_subcommand(
      "lint",
      "Lint ARM / Bicep-compiled templates, Terraform plan JSON, az CLI JSON and IMDS documents "
      "for the InfiniBand and placement traps that break multi-node training");
  c->add_option("paths", a->paths,
                "Files or directories (*.json): templates, parameter files, `terraform show "
                "-json` plans, `az vm/vmss` output, IMDS documents; '-' reads stdin")
      ->required();
  c->add_option("--parameters", a->inputs.parameter_files,
                "ARM parameters file (repeatable; later files win)");
  c->add_option("-p,--parameter", a->inputs.parameters,
                "ARM parameter as az --parameters takes it: name=value (converted by the "
                "declared type), name=@FILE, @FILE or a JSON object (repeatable; wins over files)");
  c->add_option("--template-uri-map", a->inputs.template_uri_map,
                "Where a linked template's URI is on disk: URI=PATH, or a URI prefix ending in "
                "'/'=DIR (repeatable); relativePath and deployment().properties.templateLink.uri "
                "siblings are found without it");
  c->add_option("--tf-root", a->inputs.terraform_root,
                "Directory of the .tf sources for a plan (default: the plan's directory)");
  c->add_option("--hpc-image", a->inputs.hpc_images,
                "Gallery / custom image id (or part of one) that has OFED and nvidia-peermem "
                "(repeatable)");
  c->add_option(
      "--suppressions", a->suppressions,
      std::string("Suppressions file (default: ./") + kDefaultSuppressions + " when present)");
  c->add_option("--today", a->today,
                "Date for suppression expiry, YYYY-MM-DD (default: today, UTC)");
  add_shared_flags(c, a->flags, kReportFlags | kRuleFlags | kCatalogFlag);
  return [a] { return run_lint(*a); };
}

}  // namespace trainready
