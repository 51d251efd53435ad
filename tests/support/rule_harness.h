#pragma once
// Runs one rule over facts built in code.
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "queries/node_digest.h"
#include "rules/registry.h"
#include "support/node_builder.h"

namespace trainready::test {

inline RuleOutcome run_rule(const std::string& id, const NodeFacts& n,
                            const RunOptions& options = {}) {
  const Rule* r = find_rule(id);
  if (r == nullptr) throw std::runtime_error("no rule " + id);
  std::vector<NodeFacts> nodes{n};
  RuleContext ctx{&nodes.front(), &nodes, &Catalog::builtin()};
  ctx.run_options = &options;
  return r->evaluate(ctx);
}

inline RuleOutcome run_cluster_rule(const std::string& id, const std::vector<NodeFacts>& nodes) {
  const Rule* r = find_rule(id);
  if (r == nullptr) throw std::runtime_error("no rule " + id);
  RuleContext ctx{nullptr, &nodes, &Catalog::builtin()};
  const ClusterNodes cluster = cluster_nodes_of(nodes, nullptr);  // what the cluster rules read
  ctx.cluster = &cluster;
  return r->evaluate(ctx);
}

// Runs one NCCL-log or nccl-tests rule (either input may be null).
inline RuleOutcome run_run_rule(const std::string& id, const NcclRunFacts* log,
                                const NcclTestsFacts* tests, const RunOptions& options = {}) {
  const Rule* r = find_rule(id);
  if (r == nullptr) throw std::runtime_error("no rule " + id);
  std::vector<NodeFacts> none;
  RuleContext ctx{nullptr, &none, &Catalog::builtin(), log, tests, &options};
  return r->evaluate(ctx);
}

// Runs one deployment rule over DeploymentFacts.
inline RuleOutcome run_deploy_rule(const std::string& id, const DeploymentFacts& d) {
  const Rule* r = find_rule(id);
  if (r == nullptr) throw std::runtime_error("no rule " + id);
  RuleContext ctx;
  ctx.catalog = &Catalog::builtin();
  ctx.deployment = &d;
  return r->evaluate(ctx);
}

}  // namespace trainready::test
