#include "engine/engine.h"

#include <algorithm>

#include "rules/registry.h"

namespace trainready {

Evaluation evaluate_rules(const std::vector<NodeFacts>& nodes, const Catalog& catalog,
                          const RuleSelection& selection) {
  Evaluation ev;
  for (const auto& rule : all_rules()) {
    const std::string id(rule->id());
    if (!selection.wants(id)) continue;
    if (rule->scope() == RuleScope::kNode) {
      for (const NodeFacts& n : nodes) {
        RuleContext ctx{&n, &nodes, &catalog};
        RuleOutcome o = rule->evaluate(ctx);
        ++ev.evaluations;
        if (o.skipped) {
          ev.skipped.push_back({id, n.label, o.skip_reason});
          continue;
        }
        for (Finding& f : o.findings) {
          f.node = n.label;
          ev.findings.push_back(std::move(f));
        }
        for (std::string& note : o.notes) ev.notes.push_back({id, n.label, std::move(note)});
      }
    } else if (nodes.size() > 1) {
      RuleContext ctx{nullptr, &nodes, &catalog};
      RuleOutcome o = rule->evaluate(ctx);
      ++ev.evaluations;
      if (o.skipped) {
        ev.skipped.push_back({id, "", o.skip_reason});
        continue;
      }
      for (Finding& f : o.findings) ev.findings.push_back(std::move(f));
      for (std::string& note : o.notes) ev.notes.push_back({id, "", std::move(note)});
    }
  }
  std::stable_sort(ev.findings.begin(), ev.findings.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.node != b.node) return a.node < b.node;
    return a.rule_id < b.rule_id;
  });
  return ev;
}

}  // namespace trainready
