// The layout search at every named model and 8 .. 4,096 GPUs on the built-in catalog: each
// `make_plan` (search, ranking, recommendation) timed in CPU seconds of this process. Target
// (issue 33): well under 1 s per plan on one core. Prints one line per plan (layouts evaluated,
// CPU seconds) and exits 1 when any plan misses the budget.
// Usage: plan_search_bench [BUDGET_S]   (run it pinned to one core: taskset -c 0)
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "catalog/catalog.h"
#include "catalog/model_presets.h"
#include "parsers/job_settings.h"
#include "plan/plan.h"

using namespace trainready;

namespace {

double cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  const double budget = argc > 1 ? std::atof(argv[1]) : 1.0;
  const Catalog& catalog = Catalog::builtin();
  double worst = 0;
  std::string worst_case;
  for (const ModelPreset& m : model_presets()) {
    for (int gpus : {8, 64, 512, 4096}) {
      JobSpec job;
      apply_job_setting(job, "model", m.name, "--model", 0);
      apply_job_setting(job, "gpus", std::to_string(gpus), "--gpus", 0);
      finalize_job(job);
      const double t0 = cpu_s();
      const Plan p = make_plan(job, catalog);
      const double dt = cpu_s() - t0;
      std::printf("%-14s %5d GPUs  %5d layouts  %s  %.3f s\n", m.name.c_str(), gpus,
                  p.layouts_evaluated, p.recommended ? "fits   " : "no fit ", dt);
      if (dt > worst) {
        worst = dt;
        worst_case = m.name + " on " + std::to_string(gpus) + " GPUs";
      }
    }
  }
  std::printf("slowest: %s, %.3f s (budget %.3f s)\n", worst_case.c_str(), worst, budget);
  return worst <= budget ? 0 : 1;
}
