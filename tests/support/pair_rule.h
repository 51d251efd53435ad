#pragma once
// Runs one pair-bandwidth rule over facts built in code.
#include <stdexcept>
#include <string>

#include "catalog/catalog.h"
#include "rules/registry.h"

namespace trainready::test {

inline RuleOutcome run_pair_rule(const std::string& id, const PairBandwidthFacts& f) {
  const Rule* r = find_rule(id);
  if (r == nullptr) throw std::runtime_error("no rule " + id);
  RuleContext ctx;
  ctx.catalog = &Catalog::builtin();
  ctx.pairs = &f;
  return r->evaluate(ctx);
}

}  // namespace trainready::test
