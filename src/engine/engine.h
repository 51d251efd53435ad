#pragma once
// Runs the registered rules over one or more nodes.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/finding.h"
#include "facts/collective_progress.h"
#include "facts/deployment_facts.h"
#include "facts/fleet_facts.h"
#include "facts/nccl_run_facts.h"
#include "facts/nccl_tests_facts.h"
#include "facts/node_facts.h"
#include "facts/pair_bandwidth_facts.h"
#include "facts/stage_facts.h"
#include "facts/storage_bench_facts.h"
#include "facts/watch_facts.h"
#include "rules/rule.h"
#include "rules/run_options.h"

namespace trainready {

struct Plan;            // plan/plan.h
struct PlanAcceptance;  // plan/acceptance.h

struct RuleSkip {
  std::string rule_id;
  std::string node;  // empty for cluster rules
  std::string reason;
};

// One rule evaluated once (on one node, or once for the input): what JUnit calls a test case.
struct RuleRun {
  std::string rule_id;
  std::string node;  // empty unless a node rule
  enum class Outcome { kPassed, kFailed, kSkipped, kNotApplicable } outcome = Outcome::kPassed;
  std::string detail;                // the findings' messages, or the skip reason
  Severity worst = Severity::kInfo;  // failed: the most severe finding as the rule gave it
};

struct FoldedNodeRuns;  // engine/folded_runs.h
struct SharedFindings;  // engine/shared_findings.h

struct Evaluation {
  // Most severe first. Except the node rules' findings on nodes judged elsewhere
  // (JudgeInputs::judged): those are shared_findings, each held once with its nodes. Read both
  // with for_each_finding() and finding_count() (engine/shared_findings.h).
  std::vector<Finding> findings;
  std::vector<RuleSkip> skipped;
  std::vector<RuleSkip> notes;  // parts of rules that could not be evaluated
  int evaluations = 0;          // (rule, node) pairs evaluated
  // Every evaluation, in rule order, except the node rules' runs on nodes judged elsewhere
  // (JudgeInputs::judged): those are folded_runs. Read both with for_each_run() and run_count()
  // (engine/folded_runs.h).
  std::vector<RuleRun> runs;
  std::shared_ptr<const FoldedNodeRuns> folded_runs;
  std::shared_ptr<const SharedFindings> shared_findings;
};

struct RuleSelection {
  std::set<std::string> only;  // empty = all
  std::set<std::string> skip;
  bool wants(const std::string& id) const {
    return (only.empty() || only.count(id) > 0) && skip.count(id) == 0;
  }
};

// Node rules already run elsewhere (a fleet's group leaders, docs/fleet.md "Two-level gather"):
// each node's outcome of each node rule, as one of a few distinct outcomes, and each node's
// sequence of outcomes as one of a few distinct patterns. evaluate() records them as if it had
// run the rules itself, in the same order.
struct JudgedNodes {
  std::vector<std::string> rule_ids;                 // the node rules that ran, in registry order
  std::vector<RuleOutcome> outcomes;                 // distinct
  std::vector<std::vector<std::uint32_t>> patterns;  // distinct: an outcome per rule_ids entry
  std::vector<std::uint32_t> pattern_of;             // per node, in ClusterNodes order
};

// Everything a command hands the rules; each part may be absent, and a rule runs only when the
// facts of its scope are there.
struct JudgeInputs {
  const std::vector<NodeFacts>* nodes = nullptr;
  // What the cluster rules compare; built from `nodes` when null.
  const ClusterNodes* cluster = nullptr;
  // With `cluster` and no `nodes`: the node rules' outcomes per node, run elsewhere. The
  // evaluation keeps both to expand its folded runs (Evaluation::folded_runs); `judged_cluster`
  // is `cluster`, shared (a copy of it is made when it is null).
  std::shared_ptr<const JudgedNodes> judged;
  std::shared_ptr<const ClusterNodes> judged_cluster;
  const NcclRunFacts* nccl_log = nullptr;
  const NcclTestsFacts* nccl_tests = nullptr;
  const DeploymentFacts* deployment = nullptr;
  const Plan* plan = nullptr;
  const StorageBenchFacts* storage = nullptr;
  const PairBandwidthFacts* pairs = nullptr;  // fleet --bandwidth
  const FleetFacts* fleet = nullptr;
  const StageFacts* stage = nullptr;
  const WatchFacts* watch = nullptr;
  const PlanAcceptance* acceptance = nullptr;         // plan --check
  const CollectiveProgressFacts* progress = nullptr;  // `nccl` with RAS / FR / Inspector files
  RunOptions options;
};

// Runs every selected rule whose facts are present.
Evaluation evaluate(const JudgeInputs& in, const Catalog& catalog, const RuleSelection& selection);

// The selected node rules over one node, in registry order, as evaluate() runs them: each rule's
// id and outcome, its findings not yet labelled with the node (evaluate() labels them when it
// records them). A fleet's group leaders run this and send rank 0 the outcomes (JudgedNodes).
struct NodeRuleOutcome {
  std::string rule_id;
  RuleOutcome outcome;
};
std::vector<NodeRuleOutcome> evaluate_node_rules(const NodeFacts& node, const Catalog& catalog,
                                                 const RuleSelection& selection,
                                                 const RunOptions& options);

// What a run left behind: a NCCL log, an nccl-tests result, or both (either may be null).
struct RunInputs {
  const NcclRunFacts* nccl_log = nullptr;
  const NcclTestsFacts* nccl_tests = nullptr;
  RunOptions options;
};

// The node, cluster and run rules (shorthands of evaluate(), kept for the rule tests).
Evaluation evaluate_rules(const std::vector<NodeFacts>& nodes, const Catalog& catalog,
                          const RuleSelection& selection = {}, const RunInputs* run = nullptr);
Evaluation evaluate_deployment_rules(const DeploymentFacts& deployment, const Catalog& catalog,
                                     const RuleSelection& selection = {});

}  // namespace trainready
