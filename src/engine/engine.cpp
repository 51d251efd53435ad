#include "engine/engine.h"

#include <algorithm>
#include <map>
#include <optional>

#include "engine/failure_order.h"
#include "engine/fold_readings.h"
#include "engine/folded_runs.h"
#include "engine/shared_findings.h"
#include "queries/deployment_queries.h"
#include "queries/node_digest.h"
#include "rules/registry.h"
#include "rules/supporting_readings.h"

namespace trainready {

namespace {

// Folds node findings into the run finding that explains them (Finding::subsumes).
void fold_subsumed(std::vector<Finding>& findings) {
  // A folded finding hands on what it subsumed, so chains (busbw low <- sockets <- port down)
  // end as one finding; repeat until nothing changes.
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::size_t i = 0; i < findings.size() && !changed; ++i) {
      if (findings[i].subsumes.empty()) continue;
      for (std::size_t k = 0; k < findings.size(); ++k) {
        if (k == i) continue;
        const std::vector<std::string>& sub = findings[i].subsumes;
        if (std::find(sub.begin(), sub.end(), findings[k].rule_id) == sub.end()) continue;
        Finding g = std::move(findings[k]);
        findings.erase(findings.begin() + static_cast<std::ptrdiff_t>(k));
        Finding& f = findings[k < i ? i - 1 : i];
        const std::string who = g.node.empty() ? "" : "[" + g.node + "] ";
        f.evidence.push_back({who + g.rule_id + ": " + g.message, {}});
        for (const Evidence& e : g.evidence) f.evidence.push_back(e);
        if (!g.cause.empty()) f.cause = g.cause + " " + f.cause;
        if (!g.fix.empty()) f.fix = g.fix + " " + f.fix;
        if (g.severity > f.severity) f.severity = g.severity;
        for (auto& id : g.subsumes) f.subsumes.push_back(id);
        changed = true;
        break;
      }
    }
  }
}

void sort_findings(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), finding_before);
}

// A finding the passes after the rules move, merge or reorder across the list (it subsumes
// others, is read in time, or is a supporting reading): with one, the shared findings are
// expanded and those passes see every finding, as before.
bool moves_others(const Finding& f) {
  return !f.subsumes.empty() || f.consequence || !f.onset.empty() ||
         is_supporting_reading_rule(f.rule_id);
}

// An evaluation's run: its outcome and detail (the findings' messages, or the skip reason).
RuleRun run_of(const std::string& id, const std::string& node, const RuleOutcome& o) {
  RuleRun run{id, node, RuleRun::Outcome::kPassed, ""};
  if (o.skipped) {
    run.outcome = RuleRun::Outcome::kSkipped;
    run.detail = o.skip_reason;
    return run;
  }
  if (!o.not_applicable.empty() && o.findings.empty()) {
    run.outcome = RuleRun::Outcome::kNotApplicable;
    run.detail = o.not_applicable;
  }
  for (const Finding& f : o.findings) {
    if (run.outcome != RuleRun::Outcome::kFailed || f.severity > run.worst) run.worst = f.severity;
    run.outcome = RuleRun::Outcome::kFailed;
    run.detail += (run.detail.empty() ? "" : "\n") + f.message;
  }
  return run;
}

// The rest of an evaluation: counted, its findings labelled with the node (if any), its skip
// reason or notes.
void record_outcome(Evaluation& ev, const std::string& id, const std::string& node, RuleOutcome o) {
  ++ev.evaluations;
  if (o.skipped) {
    ev.skipped.push_back({id, node, o.skip_reason});
    return;
  }
  for (Finding& f : o.findings) {
    if (!node.empty()) f.node = node;
    ev.findings.push_back(std::move(f));
  }
  for (std::string& note : o.notes) ev.notes.push_back({id, node, std::move(note)});
}

// The runs of the node rules judged elsewhere, one per distinct outcome; the rules are added as
// evaluate() meets them.
std::shared_ptr<FoldedNodeRuns> fold_runs(const JudgeInputs& in, const ClusterNodes& cluster) {
  auto f = std::make_shared<FoldedNodeRuns>();
  f->judged = in.judged;
  f->cluster =
      in.judged_cluster ? in.judged_cluster : std::make_shared<const ClusterNodes>(cluster);
  f->nodes = std::min({f->cluster->size(), cluster.size(), in.judged->pattern_of.size()});
  f->distinct.reserve(in.judged->outcomes.size());
  for (const RuleOutcome& o : in.judged->outcomes) f->distinct.push_back(run_of("", "", o));
  return f;
}

}  // namespace

Evaluation evaluate(const JudgeInputs& in, const Catalog& catalog, const RuleSelection& selection) {
  static const std::vector<NodeFacts> kNoNodes;
  const std::vector<NodeFacts>& nodes = in.nodes ? *in.nodes : kNoNodes;
  Evaluation ev;
  // One evaluation: its findings (labelled with the node, if any), skip reason or notes.
  auto record = [&ev](const std::string& id, const std::string& node, RuleOutcome o) {
    ev.runs.push_back(run_of(id, node, o));
    record_outcome(ev, id, node, std::move(o));
  };
  // What of the deployment is unresolved: the same for every deploy rule, worked out once (a
  // walk over every resource, a catalog lookup each; issue 35).
  std::optional<std::vector<std::string>> unresolved;
  ClusterNodes built;
  if (!in.cluster && !nodes.empty()) built = cluster_nodes_of(nodes, &in.options);
  const ClusterNodes& cluster = in.cluster ? *in.cluster : built;
  std::map<std::string, std::size_t> judged_at;  // rule id -> position in in.judged->rule_ids
  if (in.judged)
    for (std::size_t i = 0; i < in.judged->rule_ids.size(); ++i)
      judged_at[in.judged->rule_ids[i]] = i;
  std::shared_ptr<FoldedNodeRuns> folded;  // with in.judged: the node rules' runs
  std::shared_ptr<SharedFindings> shared;  // and their findings
  RuleContext base;
  base.nodes = &nodes;
  base.cluster = &cluster;
  base.catalog = &catalog;
  base.nccl_log = in.nccl_log;
  base.nccl_tests = in.nccl_tests;
  base.run_options = &in.options;
  base.deployment = in.deployment;
  base.plan = in.plan;
  base.storage = in.storage;
  base.pairs = in.pairs;
  base.fleet = in.fleet;
  base.stage = in.stage;
  base.watch = in.watch;
  base.acceptance = in.acceptance;
  base.progress = in.progress;
  for (const auto& rule : all_rules()) {
    const std::string id(rule->id());
    if (!selection.wants(id)) continue;
    switch (rule->scope()) {
      case RuleScope::kRunLog:
        if (in.nccl_log) record(id, "", rule->evaluate(base));
        break;
      case RuleScope::kRunTests:
        if (in.nccl_tests) record(id, "", rule->evaluate(base));
        break;
      case RuleScope::kTelemetry:
        if (in.progress) record(id, "", rule->evaluate(base));
        break;
      case RuleScope::kNode:
        if (in.judged) {
          auto at = judged_at.find(id);
          if (at == judged_at.end()) break;
          if (!folded) {
            folded = fold_runs(in, cluster);
            shared = std::make_shared<SharedFindings>();
            shared->judged = folded->judged;
            shared->cluster = folded->cluster;
            shared->nodes = folded->nodes;
          }
          folded->rules.push_back({id, at->second, ev.runs.size()});
          // Its findings, skips and notes stay with the outcomes (SharedFindings), counted here.
          share_rule_findings(*shared, static_cast<std::uint32_t>(at->second), ev);
          ev.evaluations += static_cast<int>(folded->nodes);
          break;
        }
        for (const NodeFacts& n : nodes) {
          RuleContext ctx = base;
          ctx.node = &n;
          record(id, n.label, rule->evaluate(ctx));
        }
        break;
      case RuleScope::kCluster:
        if (cluster.size() > 1) record(id, "", rule->evaluate(base));
        break;
      case RuleScope::kDeployment:
        if (in.deployment) {
          RuleOutcome o = rule->evaluate(base);
          // Nothing found in a deployment with unresolved parts is not "clean": not evaluated.
          // The deploy-parameter-* rules judge the supplied parameter values, which are all
          // known: an unresolved resource property cannot hide a finding of theirs.
          const bool values_only = id.rfind("deploy-parameter-", 0) == 0;
          if (!o.skipped && o.findings.empty() && !values_only) {
            if (!unresolved) unresolved = deployment_unresolved(*in.deployment, catalog);
            const std::vector<std::string>& u = *unresolved;
            if (!u.empty()) {
              std::string why = "not evaluated, the deployment has unresolved values: " + u[0];
              for (std::size_t i = 1; i < u.size() && i < 4; ++i) why += "; " + u[i];
              if (u.size() > 4) why += "; and " + std::to_string(u.size() - 4) + " more";
              o = RuleOutcome::skip(why);
            }
          }
          record(id, "", std::move(o));
        }
        break;
      case RuleScope::kPlan:
        if (in.plan) record(id, "", rule->evaluate(base));
        break;
      case RuleScope::kStorage:
        if (in.storage) record(id, "", rule->evaluate(base));
        break;
      case RuleScope::kPairs:
        if (in.pairs) record(id, "", rule->evaluate(base));
        break;
      case RuleScope::kFleet:
        if (in.fleet) record(id, "", rule->evaluate(base));
        break;
      case RuleScope::kStage:
        if (in.stage) record(id, "", rule->evaluate(base));
        break;
      case RuleScope::kWatch:
        if (in.watch) record(id, "", rule->evaluate(base));
        break;
      case RuleScope::kPlanCheck:
        if (in.acceptance) record(id, "", rule->evaluate(base));
        break;
    }
  }
  if (shared) {
    auto moves = [&] {
      for (const Finding& f : ev.findings)
        if (moves_others(f)) return true;
      for (const SharedFindings::Entry& e : shared->entries)
        if (moves_others(*e.finding)) return true;
      return false;
    };
    sort_shared_findings(*shared);
    if (moves()) {  // the findings as before; the skips and notes stay shared
      expand_shared_findings(*shared, ev.findings);
      shared->entries.clear();
      shared->sets.clear();
      shared->count = 0;
    }
  }
  fold_subsumed(ev.findings);
  sort_findings(ev.findings);
  fold_same_evidence(ev.findings);
  sort_findings(ev.findings);
  put_first_failure_first(ev.findings);
  ev.folded_runs = std::move(folded);
  if (shared && shared->count + shared->skip_count + shared->note_count > 0)
    ev.shared_findings = std::move(shared);
  return ev;
}

std::vector<NodeRuleOutcome> evaluate_node_rules(const NodeFacts& node, const Catalog& catalog,
                                                 const RuleSelection& selection,
                                                 const RunOptions& options) {
  RuleContext ctx;
  ctx.node = &node;
  ctx.catalog = &catalog;
  ctx.run_options = &options;
  std::vector<NodeRuleOutcome> out;
  for (const auto& rule : all_rules()) {
    if (rule->scope() != RuleScope::kNode) continue;
    std::string id(rule->id());
    if (!selection.wants(id)) continue;
    RuleOutcome o = rule->evaluate(ctx);
    for (Finding& f : o.findings) f.node.clear();
    out.push_back({std::move(id), std::move(o)});
  }
  return out;
}

Evaluation evaluate_rules(const std::vector<NodeFacts>& nodes, const Catalog& catalog,
                          const RuleSelection& selection, const RunInputs* run) {
  JudgeInputs in;
  in.nodes = &nodes;
  if (run) {
    in.nccl_log = run->nccl_log;
    in.nccl_tests = run->nccl_tests;
    in.options = run->options;
  }
  return evaluate(in, catalog, selection);
}

Evaluation evaluate_deployment_rules(const DeploymentFacts& deployment, const Catalog& catalog,
                                     const RuleSelection& selection) {
  JudgeInputs in;
  in.deployment = &deployment;
  return evaluate(in, catalog, selection);
}

}  // namespace trainready
