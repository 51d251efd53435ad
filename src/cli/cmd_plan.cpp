// `trainready plan`: from a job description (flags, a TOML/YAML/JSON job file, or both), the VM
// size, count, placement, storage and cost that keep the GPUs busy, with every figure explained.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cli/commands.h"
#include "cli/judge.h"
#include "cli/plan_check.h"
#include "core/input_error.h"
#include "core/root.h"
#include "emit/deployment_model.h"
#include "parsers/job_file.h"
#include "parsers/job_settings.h"
#include "plan/plan.h"

namespace trainready {
namespace {

struct PlanArgs {
  std::string job_file;
  std::map<std::string, std::string> scalars;
  std::map<std::string, std::vector<std::string>> lists;
  std::map<std::string, bool> flags;
  std::map<std::string, CLI::Option*> options;
  bool explain = false;
  std::string emit;  // --emit arm|bicep|terraform: -o is then the directory
  bool force = false;
  PlanCheckArgs check;  // --check PLAN.json --measured FILE...
  SharedFlags shared;
};

constexpr std::size_t kJobFileLimit = 1 << 20;

bool is_boolean(const std::string& key) { return key == "spot" || key == "sequence-parallel"; }

JobSpec read_job(const PlanArgs& a) {
  JobSpec job;
  if (!a.job_file.empty()) {
    FileRead r = FsRoot("/").read_file(a.job_file, kJobFileLimit);
    if (!r.ok()) throw InputError(a.job_file, 0, "cannot read the job file: " + r.error);
    const JobFileFormat format = job_file_format(a.job_file, r.data);
    for (const JobFileEntry& e : parse_job_file(r.data, a.job_file, format))
      apply_job_setting(job, e.key, e.value, a.job_file, e.line);
  }
  // Flags override the file; a list given on the command line replaces the file's.
  for (const JobSettingInfo& info : job_setting_keys()) {
    const std::string key = info.key;
    const CLI::Option* opt = a.options.at(key);
    if (opt->count() == 0) continue;
    const std::string flag = "--" + key;
    if (info.list) {
      if (key == "sku") job.skus.clear();
      for (const std::string& v : a.lists.at(key)) apply_job_setting(job, key, v, flag, 0);
    } else if (is_boolean(key)) {
      apply_job_setting(job, key, a.flags.at(key) ? "true" : "false", flag, 0);
    } else {
      apply_job_setting(job, key, a.scalars.at(key), flag, 0);
    }
  }
  finalize_job(job);
  return job;
}

// --emit: the deployment for the recommendation into the -o directory (the report then goes
// to stdout); refused with exit 2 and the reason when there is nothing one scale set can hold.
void emit_plan(const Plan& plan, const PlanArgs& a) {
  if (a.shared.output.empty())
    throw InputError("--emit", 0, "-o DIR is required: the directory to write the deployment into");
  const DeploymentModel m = build_deployment(plan);
  const std::string path = emit_deployment(m, a.emit, a.shared.output, a.force);
  std::fprintf(stderr, "trainready: wrote %s (%s)\n", path.c_str(), m.plan_summary.c_str());
  for (const std::string& n : m.notes) std::fprintf(stderr, "  note: %s\n", n.c_str());
}

int run_plan(const PlanArgs& a) {
  if (a.check.requested()) {
    std::vector<std::string> given;
    if (!a.job_file.empty()) given.push_back("--job");
    if (!a.emit.empty()) given.push_back("--emit");
    for (const auto& [key, opt] : a.options)
      if (opt->count() > 0) given.push_back("--" + key);
    return run_plan_check(a.check, a.shared, a.explain, given);
  }
  a.shared.check();
  Report r = start_report("plan", a.shared);
  r.plan = std::make_shared<Plan>(make_plan(read_job(a), a.shared.catalog()));
  if (a.emit.empty()) return judge_and_emit(r, a.shared, a.explain);
  try {
    emit_plan(*r.plan, a);
  } catch (const EmitRefused& e) {
    throw InputError("--emit " + a.emit, 0, std::string("refused: ") + e.what());
  }
  SharedFlags to_stdout = a.shared;
  to_stdout.output.clear();
  return judge_and_emit(r, to_stdout, a.explain);
}

}  // namespace

Runner add_plan_command(CLI::App& app) {
  auto a = std::make_shared<PlanArgs>();
  CLI::App* c = app.add_subcommand(
      "plan",
      "Plan a training cluster: memory per GPU, step time, communication, data feed, placement "
      "and cost for each VM size, and a recommendation; with --check, a deployed cluster's "
      "measurements against its plan");
  c->add_option("--job", a->job_file, "Job description: TOML, YAML or JSON with the flags' keys");
  for (const JobSettingInfo& info : job_setting_keys()) {
    const std::string key = info.key;
    const std::string name = "--" + key;
    CLI::Option* opt = nullptr;
    if (info.list) {
      opt = c->add_option(name, a->lists[key], info.help)->type_name(info.value);
    } else if (is_boolean(key)) {
      opt = c->add_flag(name, a->flags[key], info.help);
    } else {
      opt = c->add_option(name, a->scalars[key], info.help)->type_name(info.value);
    }
    a->options[key] = opt;
  }
  c->add_flag("--explain", a->explain, "Show the formula, inputs and source of every figure");
  c->add_option("--emit", a->emit,
                "Write a deployment for the recommendation into the -o directory: arm "
                "(azuredeploy.json), bicep (main.bicep) or terraform (main.tf); the report goes "
                "to stdout")
      ->check(CLI::IsMember({"arm", "bicep", "terraform"}));
  c->add_flag("--force", a->force, "With --emit: replace a file already in the -o directory");
  add_plan_check_flags(c, a->check);
  add_shared_flags(c, a->shared, kReportFlags | kRuleFlags | kCatalogFlag);
  return [a] { return run_plan(*a); };
}

}  // namespace trainready
