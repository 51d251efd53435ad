#pragma once
// A JobSpec from flag-style settings, as `trainready plan --KEY VALUE` builds it, and a
// candidate of a plan by VM size: what the planner tests share.
#include <initializer_list>
#include <string>
#include <utility>

#include "parsers/job_settings.h"
#include "plan/plan.h"

namespace trainready::test {

inline JobSpec job(std::initializer_list<std::pair<std::string, std::string>> settings) {
  JobSpec j;
  for (const auto& [k, v] : settings) apply_job_setting(j, k, v, "--" + k, 0);
  finalize_job(j);
  return j;
}

inline const Candidate* find(const Plan& p, const std::string& sku) {
  for (const Candidate& c : p.candidates) {
    if (c.sku->name == sku) return &c;
  }
  return nullptr;
}

}  // namespace trainready::test
