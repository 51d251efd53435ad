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
#include "facts/node_facts.h"

namespace trainready {

enum class RuleScope { kNode, kCluster };

struct RuleContext {
  const NodeFacts* node = nullptr;                // node rules
  const std::vector<NodeFacts>* nodes = nullptr;  // cluster rules (two or more nodes)
  const Catalog* catalog = nullptr;
};

struct RuleOutcome {
  bool skipped = false;
  std::string skip_reason;  // which fact was missing, and why
  std::vector<Finding> findings;
  std::vector<std::string> notes;  // parts that could not be evaluated (e.g. one unreadable port)

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
