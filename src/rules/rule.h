#pragma once
// A rule turns facts into findings. It never reads a file. One rule = one file under
// src/rules/<domain>/, a stable kebab-case id (the public key: CLI filters, JSON `rule`, doc page
// docs/rules/<id>.md), a default severity, a title, and evaluate().
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "core/finding.h"
#include "facts/collective_progress.h"
#include "facts/deployment_facts.h"
#include "facts/fleet_facts.h"
#include "facts/nccl_run_facts.h"
#include "facts/nccl_tests_facts.h"
#include "facts/node_digest.h"
#include "facts/node_facts.h"
#include "facts/pair_bandwidth_facts.h"
#include "facts/stage_facts.h"
#include "facts/storage_bench_facts.h"
#include "facts/watch_facts.h"
#include "rules/run_options.h"

namespace trainready {

struct Plan;            // plan/plan.h: the planner's output, judged by the plan rules
struct PlanAcceptance;  // plan/acceptance.h: a plan recomputed with measured values

// kNode: once per node; kCluster: once over two or more nodes; kRunLog / kRunTests: once when a
// NCCL log / an nccl-tests result was given (the rule may also read the nodes, if any);
// kDeployment: once over the deployment definitions or deployed state given to `lint`;
// kPlan: once over a plan; kStorage: once over a storage benchmark's result.
// kWatch: once over a watch run's labelled timeline.
// kFleet: once over a `fleet` run's ranks (who answered, who did not, with what).
// kPairs: once over the pair-bandwidth matrix of `fleet --bandwidth`.
enum class RuleScope {
  kNode,
  kCluster,
  kRunLog,
  kRunTests,
  kDeployment,
  kPlan,
  kStorage,
  kFleet,
  kPairs,
  kStage,      // once over what `stage` copied or verified
  kWatch,      // once over what `watch` labelled (each rule also labels intervals: watch/window.h)
  kPlanCheck,  // once over a plan checked against measurements (`plan --check`)
  kTelemetry   // once over NCCL RAS / Flight Recorder / Inspector output given to `nccl`
};

inline const char* scope_name(RuleScope s) {
  switch (s) {
    case RuleScope::kNode:
      return "node";
    case RuleScope::kCluster:
      return "cluster";
    case RuleScope::kRunLog:
      return "nccl-log";
    case RuleScope::kRunTests:
      return "nccl-tests";
    case RuleScope::kDeployment:
      return "deployment";
    case RuleScope::kPlan:
      return "plan";
    case RuleScope::kStorage:
      return "storage";
    case RuleScope::kPairs:
      return "pairs";
    case RuleScope::kFleet:
      return "fleet";
    case RuleScope::kStage:
      return "stage";
    case RuleScope::kWatch:
      return "watch";
    case RuleScope::kPlanCheck:
      return "plan-check";
    case RuleScope::kTelemetry:
      return "nccl-telemetry";
  }
  return "node";
}

struct RuleContext {
  const NodeFacts* node = nullptr;                // node rules
  const std::vector<NodeFacts>* nodes = nullptr;  // the nodes' facts, when this process has them
  const Catalog* catalog = nullptr;
  const NcclRunFacts* nccl_log = nullptr;      // run rules
  const NcclTestsFacts* nccl_tests = nullptr;  // run rules
  const RunOptions* run_options = nullptr;
  const DeploymentFacts* deployment = nullptr;        // deployment rules
  const Plan* plan = nullptr;                         // plan rules
  const StorageBenchFacts* storage = nullptr;         // storage rules
  const PairBandwidthFacts* pairs = nullptr;          // pair-bandwidth rules
  const FleetFacts* fleet = nullptr;                  // fleet rules
  const StageFacts* stage = nullptr;                  // stage rules
  const WatchFacts* watch = nullptr;                  // watch rules
  const PlanAcceptance* acceptance = nullptr;         // plan-check rules
  const CollectiveProgressFacts* progress = nullptr;  // telemetry rules (RAS, FR, Inspector)
  const ClusterNodes* cluster = nullptr;  // cluster rules (two or more nodes): what they compare
};

struct RuleOutcome {
  bool skipped = false;
  std::string skip_reason;  // which fact was missing, and why
  std::vector<Finding> findings;
  std::vector<std::string> notes;  // parts that could not be evaluated (e.g. one unreadable port)
  // Nothing to judge, and nothing missing either: a measurement the user did not pass in (an
  // ib_write_bw capture). Not a pass and not a skipped check; the reason is shown.
  std::string not_applicable;

  static RuleOutcome does_not_apply(std::string why) {
    RuleOutcome o;
    o.not_applicable = std::move(why);
    return o;
  }
  static RuleOutcome skip(std::string why) {
    RuleOutcome o;
    o.skipped = true;
    o.skip_reason = std::move(why);
    return o;
  }
};

class Rule {
 public:
  virtual ~Rule() = default;
  virtual std::string_view id() const = 0;
  virtual Severity severity() const = 0;
  virtual std::string_view title() const = 0;
  virtual RuleScope scope() const { return RuleScope::kNode; }
  virtual RuleOutcome evaluate(const RuleContext& ctx) const = 0;

 protected:
  // A finding of this rule with its default severity.
  Finding finding(std::string message) const {
    Finding f;
    f.rule_id = std::string(id());
    f.severity = severity();
    f.message = std::move(message);
    return f;
  }
};

}  // namespace trainready
