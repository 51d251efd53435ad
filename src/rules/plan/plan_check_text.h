#pragma once
// The sentences the plan-check rules share: what a measured shortfall costs a run, in step time,
// run time and money, as a cloud engineer defends or rejects a bill with.
#include <cmath>
#include <optional>
#include <string>

#include "core/units.h"
#include "plan/acceptance.h"

namespace trainready {

// "12 %", "1.5 %", "0.049 %", "1153 %"
inline std::string plan_check_percent(double fraction) {
  return format_number(std::fabs(fraction) * 100, 2) + " %";
}

// "each step is 12 % longer, the run 1.8 days longer, and costs $X more" (or shorter / less).
inline std::string plan_check_cost_sentence(const PlannedRun& p, double step, double run,
                                            const std::optional<double>& cost) {
  const double ds = p.step_seconds > 0 ? step / p.step_seconds - 1 : 0;
  if (std::fabs(ds) < 0.0005) return "it costs no measurable step time (under 0.05 %)";
  const bool longer = ds > 0;
  std::string s = "each step is " + plan_check_percent(ds) + (longer ? " longer" : " shorter") +
                  ", the run " + format_duration(std::fabs(run - p.run_seconds)) +
                  (longer ? " longer" : " shorter");
  if (cost && p.cost_per_run)
    s += ", and it costs " + format_usd(std::fabs(*cost - *p.cost_per_run)) +
         (longer ? " more" : " less");
  else
    s += " (no price known: --price SIZE=USD in the plan gives the money)";
  return s;
}

}  // namespace trainready
