#pragma once
// The node rules' runs of a fleet judged by group leaders (JudgedNodes, docs/fleet.md "Two-level
// gather"), kept folded: each rule's run on a node is one of a few distinct runs, one per distinct
// outcome, so rank 0 holds them in memory that grows with the distinct outcomes and a pattern index
// per node, not with rules x nodes. for_each_run() hands a reporter every run, the folded ones
// expanded one at a time, in the order evaluate() records them when it runs the rules itself.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace trainready {

struct FoldedNodeRuns {
  struct Rule {
    std::string id;
    std::size_t column = 0;  // its position in JudgedNodes::rule_ids (a pattern's entry)
    std::size_t before = 0;  // the Evaluation::runs entry its runs come before
  };
  std::vector<Rule> rules;        // in registry order
  std::vector<RuleRun> distinct;  // one per JudgedNodes::outcomes entry; rule_id and node empty
  std::shared_ptr<const JudgedNodes> judged;    // each node's pattern of outcomes
  std::shared_ptr<const ClusterNodes> cluster;  // each node's label
  std::size_t nodes = 0;                        // nodes judged: runs per rule
};

// Every rule evaluation: Evaluation::runs and the folded runs.
inline std::size_t run_count(const Evaluation& ev) {
  const FoldedNodeRuns* f = ev.folded_runs.get();
  return ev.runs.size() + (f ? f->rules.size() * f->nodes : 0);
}

// Calls fn(const RuleRun&) for every run, in rule order (a folded rule's runs node by node). The
// RuleRun of a folded run lives until the next call.
template <class Fn>
void for_each_run(const Evaluation& ev, Fn&& fn) {
  const FoldedNodeRuns* f = ev.folded_runs.get();
  std::size_t next = 0;  // the next folded rule
  RuleRun one;
  auto folded_before = [&](std::size_t k) {
    for (; f && next < f->rules.size() && f->rules[next].before <= k; ++next) {
      const FoldedNodeRuns::Rule& rule = f->rules[next];
      for (std::size_t i = 0; i < f->nodes; ++i) {
        const RuleRun& d = f->distinct[f->judged->patterns[f->judged->pattern_of[i]][rule.column]];
        one.rule_id = rule.id;
        one.node = f->cluster->labels[i];
        one.outcome = d.outcome;
        one.detail = d.detail;
        one.worst = d.worst;
        fn(static_cast<const RuleRun&>(one));
      }
    }
  };
  for (std::size_t k = 0; k < ev.runs.size(); ++k) {
    folded_before(k);
    fn(ev.runs[k]);
  }
  folded_before(ev.runs.size());
}

}  // namespace trainready
