// Fuzz target: plan's job files. The first byte picks the format (TOML, YAML, JSON); the settings
// that read are applied and, when they settle, planned on the built-in catalog, so no job
// description can crash the planner either. Besides not crashing: every cost the plan states is
// finite and not negative (the bounds on counts and sizes keep the arithmetic in range).
#include <cmath>
#include <cstdlib>

#include "catalog/catalog.h"
#include "fuzz/fuzz_target.h"
#include "parsers/job_file.h"
#include "parsers/job_settings.h"
#include "plan/plan.h"

TRAINREADY_FUZZ_TARGET(job_file, text) {
  if (text.empty()) return;
  const auto format =
      static_cast<trainready::JobFileFormat>(static_cast<unsigned char>(text[0]) % 3);
  const auto entries = trainready::parse_job_file(text.substr(1), "fuzz", format);
  trainready::JobSpec job;
  for (const auto& e : entries) trainready::apply_job_setting(job, e.key, e.value, "fuzz", e.line);
  trainready::finalize_job(job);
  const trainready::Plan plan = trainready::make_plan(job, trainready::Catalog::builtin());
  for (const auto& c : plan.candidates) {
    if (c.cost && (!std::isfinite(c.cost->per_run.value) || c.cost->per_run.value < 0))
      std::abort();
  }
}
