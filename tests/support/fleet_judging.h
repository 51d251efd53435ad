#pragma once
// What the fleet tests share: the default flags, a group leader's judging setup, and a rank 0
// report run through the rules and the fleet summary as `trainready fleet` does.
#include <memory>

#include "cli/judge.h"
#include "cli/shared_flags.h"
#include "fleet/fleet_summary.h"
#include "fleet/group_judgement.h"
#include "report/report.h"

namespace trainready::test {

inline SharedFlags& fleet_flags() {
  static SharedFlags f;
  return f;
}

inline JudgeSetup fleet_judge_setup(bool forward_facts) {
  JudgeSetup s;
  s.catalog = &fleet_flags().catalog();
  s.selection = fleet_flags().selection();
  s.options = fleet_flags().run_options();
  s.forward_facts = forward_facts;
  return s;
}

inline Report finished_fleet_report(Report r) {
  r.evaluation = run_rules(r, fleet_flags());
  r.fleet_summary = std::make_shared<FleetSummary>(summarize_fleet(r));
  finish_report(r, Severity::kError);
  return r;
}

}  // namespace trainready::test
