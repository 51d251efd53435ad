#pragma once
// `plan --check PLAN.json --measured FILE...`: the plan's recommended cluster recomputed with
// what `fleet --bandwidth`, `bench allreduce` and `bench storage` measured, judged by the
// plan-check rules (src/plan/acceptance*.cpp, src/rules/plan/plan_*).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/shared_flags.h"

namespace trainready {

struct PlanCheckArgs {
  std::string plan;                   // --check: the plan's JSON report
  std::vector<std::string> measured;  // --measured, repeatable
  double margin_percent = 10;         // --margin
  CLI::Option* measured_option = nullptr;
  CLI::Option* margin_option = nullptr;
  bool requested() const { return !plan.empty(); }
};

void add_plan_check_flags(CLI::App* plan, PlanCheckArgs& a);
// `job_flags`: the job flags (and --job, --emit) given with --check, refused: the plan holds its
// job. Returns the exit code.
int run_plan_check(const PlanCheckArgs& a, const SharedFlags& shared, bool explain,
                   const std::vector<std::string>& job_flags);

}  // namespace trainready
