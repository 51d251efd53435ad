#pragma once
// The health rules: they judge the state `trainready health` keeps between samples
// (facts/health_facts.h). They are Rules (an id, a severity, a title, a page docs/rules/<id>.md,
// found by find_rule, so --rule/--skip and `explain` know them) but are not in all_rules(): the
// node, cluster and run commands never evaluate them; `health` does, through evaluate_health.
#include <memory>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "facts/health_facts.h"
#include "rules/rule.h"

namespace trainready {

class HealthRule : public Rule {
 public:
  RuleOutcome evaluate(const RuleContext&) const override {
    return RuleOutcome::skip("judged by `trainready health` over its state file");
  }
  virtual RuleOutcome judge(const HealthFacts& f) const = 0;
};

// Sorted by id.
const std::vector<std::unique_ptr<HealthRule>>& health_rules();
const HealthRule* find_health_rule(std::string_view id);

// The selected health rules over `f`: findings most severe first, one run per rule.
Evaluation evaluate_health(const HealthFacts& f, const RuleSelection& selection);

}  // namespace trainready
