#pragma once
// How every command ends: the rules run over what its report holds, then the report is finished
// (verdict, exit code) and written in the chosen format.
#include "cli/shared_flags.h"
#include "facts/deployment_facts.h"
#include "report/report.h"

namespace trainready {

// A report of `command` with the tool's version and the catalog's origin.
Report start_report(const std::string& command, const SharedFlags& f);
// The selected rules over the report's facts (and the deployment's, for lint); fills the
// expected busbw when an nccl-tests result is there.
Evaluation run_rules(Report& r, const SharedFlags& f, const DeploymentFacts* deployment = nullptr);
// run_rules, then the verdict and exit code, then the output; returns the exit code.
int judge_and_emit(Report& r, const SharedFlags& f, bool explain = false);

}  // namespace trainready
