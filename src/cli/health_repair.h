#pragma once
// `trainready health`: from the findings it reports to what is done about the node, in the order
// Azure documents (Azure/ai-infrastructure-on-azure skills node_drain_and_replace; Microsoft
// Learn, "Report node health by using Guest Health Reporting"): drain, collect the evidence, file
// the Guest Health Report, then reboot or redeploy. The GHR request body is printed, never sent.
#include <iosfwd>
#include <string>
#include <vector>

#include "core/finding.h"
#include "facts/health_facts.h"
#include "rules/health/health_judge.h"

namespace trainready {

// Microsoft Learn, "Report node health by using Guest Health Reporting (preview)"
// (learn.microsoft.com/azure/virtual-machines/guest-health-impact-report): PUT this URL with the
// body below; api-version as the page gives it.
inline constexpr const char* kGhrUrl =
    "https://management.azure.com/subscriptions/<subscriptionId>/providers/Microsoft.Impact/"
    "workloadImpacts/<a new GUID>?api-version=2023-02-01-preview";

struct RepairPlan {
  RepairAction action = RepairAction::kIgnore;
  std::string ghr_category;      // of the verdict that set `action`, when it is kReportAzure
  std::string ghr_description;   // that verdict's message
  std::vector<Finding> failing;  // at or above --fail-on, furthest action first, each message
                                 // led by "action=<a> [ghr=<category>]:"
};

// The plan for the findings of an evaluation at or above `fail_on` (health rules only).
RepairPlan plan_repair(const std::vector<Finding>& findings, const HealthFacts& facts,
                       Severity fail_on);

// The GHR request body (JSON) for the plan; empty unless the action is kReportAzure.
std::string ghr_body(const RepairPlan& p, const HealthFacts& facts);

// The plan in words: numbered steps for `node`, each a command or what to do.
void print_repair_plan(std::ostream& out, const RepairPlan& p, const HealthFacts& facts,
                       const std::string& node);

struct SlurmAct {
  bool act = false;          // --drain: run scontrol; otherwise print what would run
  bool record_only = false;  // --record-only: never run, say what would have run
  int timeout_ms = 30000;
};

// Drains the node (reason = drain_reason of the plan's failing findings) when the plan fails,
// resumes it when the state is clear and trainready drained it, leaves a reason someone else set.
void slurm_act(std::ostream& out, std::ostream& err, const RepairPlan& p, const std::string& node,
               const SlurmAct& how);

}  // namespace trainready
