#include "cli/plan_check.h"

#include <memory>

#include "cli/judge.h"
#include "core/input_error.h"
#include "core/root.h"
#include "plan/acceptance_inputs.h"

namespace trainready {
namespace {

// A fleet report holds every node's facts: 64 MiB is thousands of nodes.
constexpr std::size_t kReportLimit = 64u << 20;

std::string read_report(const std::string& path, const char* flag) {
  FileRead r = FsRoot("/").read_file(path, kReportLimit);
  if (!r.ok())
    throw InputError(path, 0, std::string("cannot read the ") + flag + " file: " + r.error);
  return r.data;
}

}  // namespace

void add_plan_check_flags(CLI::App* plan, PlanCheckArgs& a) {
  CLI::Option* check = plan->add_option(
      "--check", a.plan,
      "Check a cluster against its plan: the plan's JSON (plan ... --format json -o FILE); "
      "--measured gives what the cluster measured");
  check->type_name("PLAN.json");
  a.measured_option =
      plan->add_option("--measured", a.measured,
                       "With --check: the JSON of fleet --bandwidth, bench allreduce or bench "
                       "storage (repeatable); the plan is recomputed with what they measured")
          ->type_name("FILE")
          ->needs(check);
  a.margin_option =
      plan->add_option("--margin", a.margin_percent,
                       "With --check: how much longer than planned a run may take, percent "
                       "(default 10; the same share SuperBench flags a node at)")
          ->type_name("PCT")
          ->check(CLI::Range(0.0, 1000.0))
          ->needs(check);
}

int run_plan_check(const PlanCheckArgs& a, const SharedFlags& shared, bool explain,
                   const std::vector<std::string>& job_flags) {
  shared.check();
  if (!job_flags.empty())
    throw InputError(job_flags.front(), 0,
                     "not with --check: the plan's JSON holds its job; plan again to change it");
  if (a.measured.empty())
    throw InputError("--check", 0,
                     "--measured FILE is required: the JSON of fleet --bandwidth, bench "
                     "allreduce or bench storage");
  // Read everything before writing anything: a bad file is exit 2 with no report written.
  const PlannedRun planned =
      read_planned_run(read_report(a.plan, "--check"), a.plan, kReportSchemaVersion);
  const Catalog& catalog = shared.catalog();
  const SkuEntry* sku = catalog.find(planned.sku);
  if (sku == nullptr)
    throw InputError(a.plan, 0,
                     "VM size " + planned.sku + " is not in the catalog " + catalog.origin() +
                         " (the plan used " + planned.catalog + "; pass it with --catalog)");
  Measurements m;
  if (planned.catalog != catalog.origin())
    m.notes.push_back("the plan was made with the catalog " + planned.catalog + "; this check " +
                      "reads " + catalog.origin());
  for (const std::string& f : a.measured)
    read_measurement(read_report(f, "--measured"), f, kReportSchemaVersion, planned.gpus_per_vm, m);
  Report r = start_report("plan check", shared);
  r.acceptance = std::make_shared<PlanAcceptance>(
      check_plan(planned, m, *sku, catalog.storage(), a.margin_percent / 100));
  return judge_and_emit(r, shared, explain);
}

}  // namespace trainready
