#include "engine/engine.h"

#include <algorithm>

#include "rules/registry.h"

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
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.node != b.node) return a.node < b.node;
    if (a.location.source != b.location.source) return a.location.source < b.location.source;
    if (a.location.line != b.location.line) return a.location.line < b.location.line;
    return a.rule_id < b.rule_id;
  });
}

}  // namespace

Evaluation evaluate_rules(const std::vector<NodeFacts>& nodes, const Catalog& catalog,
                          const RuleSelection& selection, const RunInputs* run) {
  Evaluation ev;
  // One evaluation: its findings (labelled with the node, if any), skip reason or notes.
  auto record = [&ev](const std::string& id, const std::string& node, RuleOutcome o) {
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
  };
  for (const auto& rule : all_rules()) {
    const std::string id(rule->id());
    if (!selection.wants(id)) continue;
    switch (rule->scope()) {
      case RuleScope::kRunLog:
      case RuleScope::kRunTests: {
        const bool has_input =
            run != nullptr && (rule->scope() == RuleScope::kRunLog ? run->nccl_log != nullptr
                                                                   : run->nccl_tests != nullptr);
        if (!has_input) break;
        RuleContext ctx{nullptr, &nodes, &catalog, run->nccl_log, run->nccl_tests, &run->options};
        record(id, "", rule->evaluate(ctx));
        break;
      }
      case RuleScope::kNode:
        for (const NodeFacts& n : nodes) {
          RuleContext ctx{&n, &nodes, &catalog};
          record(id, n.label, rule->evaluate(ctx));
        }
        break;
      case RuleScope::kCluster:
        if (nodes.size() > 1) {
          RuleContext ctx{nullptr, &nodes, &catalog};
          record(id, "", rule->evaluate(ctx));
        }
        break;
      case RuleScope::kDeployment:
        break;  // evaluate_deployment_rules
    }
  }
  fold_subsumed(ev.findings);
  sort_findings(ev.findings);
  return ev;
}

Evaluation evaluate_deployment_rules(const DeploymentFacts& deployment, const Catalog& catalog,
                                     const RuleSelection& selection) {
  Evaluation ev;
  for (const auto& rule : all_rules()) {
    const std::string id(rule->id());
    if (rule->scope() != RuleScope::kDeployment || !selection.wants(id)) continue;
    RuleContext ctx;
    ctx.catalog = &catalog;
    ctx.deployment = &deployment;
    RuleOutcome o = rule->evaluate(ctx);
    ++ev.evaluations;
    if (o.skipped) {
      ev.skipped.push_back({id, "", o.skip_reason});
      continue;
    }
    for (Finding& f : o.findings) ev.findings.push_back(std::move(f));
    for (std::string& note : o.notes) ev.notes.push_back({id, "", std::move(note)});
  }
  sort_findings(ev.findings);
  return ev;
}

}  // namespace trainready
