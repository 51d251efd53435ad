#pragma once
// Runs the registered rules over one or more nodes.
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "core/finding.h"
#include "facts/busbw_expectation.h"
#include "facts/deployment_facts.h"
#include "facts/nccl_run_facts.h"
#include "facts/nccl_tests_facts.h"
#include "facts/node_facts.h"

namespace trainready {

struct RuleSkip {
  std::string rule_id;
  std::string node;  // empty for cluster rules
  std::string reason;
};

struct Evaluation {
  std::vector<Finding> findings;  // most severe first
  std::vector<RuleSkip> skipped;
  std::vector<RuleSkip> notes;  // parts of rules that could not be evaluated
  int evaluations = 0;          // (rule, node) pairs evaluated
};

struct RuleSelection {
  std::set<std::string> only;  // empty = all
  std::set<std::string> skip;
  bool wants(const std::string& id) const {
    return (only.empty() || only.count(id) > 0) && skip.count(id) == 0;
  }
};

// What a run left behind: a NCCL log, an nccl-tests result, or both (either may be null).
struct RunInputs {
  const NcclRunFacts* nccl_log = nullptr;
  const NcclTestsFacts* nccl_tests = nullptr;
  RunOptions options;
};

Evaluation evaluate_rules(const std::vector<NodeFacts>& nodes, const Catalog& catalog,
                          const RuleSelection& selection = {}, const RunInputs* run = nullptr);

// Runs the deployment rules (`lint`) over template, plan or deployed-state facts.
Evaluation evaluate_deployment_rules(const DeploymentFacts& deployment, const Catalog& catalog,
                                     const RuleSelection& selection = {});

}  // namespace trainready
