#pragma once
// The node findings of a fleet judged by group leaders (JudgedNodes, docs/fleet.md "Two-level
// gather"), held once each with the set of nodes it holds on (and their skips and notes, read
// from the distinct outcomes node by node as they are written): a node rule's finding that 4,096
// nodes share is one Finding and one range of nodes, not 4,096 copies. Only findings whose every
// field is the same share an entry (they come from one distinct outcome of one rule); a finding
// whose evidence differs from node to node is an entry per node. for_each_finding() hands a
// reporter every finding, Evaluation::findings and these merged, in the order evaluate() sorts
// them, each shared one expanded node by node as it goes (its node set, a copy per entry while a
// severity's findings are written; nothing per node is kept).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace trainready {

// The order of Evaluation::findings: most severe first, then the higher rank, then by node,
// location and rule.
bool finding_before(const Finding& a, const Finding& b);

struct SharedFindings {
  struct Range {  // positions in by_label, [first, end)
    std::uint32_t first = 0;
    std::uint32_t end = 0;
  };
  struct Entry {
    const Finding* finding = nullptr;  // in judged->outcomes; its node empty
    std::uint32_t set = 0;             // into sets
    std::uint32_t column = 0;          // the rule's position in JudgedNodes::rule_ids
    std::uint32_t outcome = 0;         // into JudgedNodes::outcomes
    std::uint32_t index = 0;           // into that outcome's findings
  };
  std::shared_ptr<const JudgedNodes> judged;    // owns the findings
  std::shared_ptr<const ClusterNodes> cluster;  // each node's label
  std::vector<std::uint32_t> by_label;          // node indices, their labels in ascending order
  std::vector<std::vector<Range>> sets;         // the nodes of one rule's outcome, as ranges
  // Sorted by severity and rank (as finding_before), then location, rule and place in its
  // outcome: within one severity and rank, a node's findings come in this order.
  std::vector<Entry> entries;
  std::size_t count = 0;  // findings once expanded: every entry once per node of its set
  std::size_t nodes = 0;  // nodes judged
  struct Rule {
    std::uint32_t column = 0;  // its position in JudgedNodes::rule_ids
    std::size_t before = 0;    // the Evaluation::findings entry its findings were recorded before
    std::size_t skip_before = 0;  // the same in Evaluation::skipped
    std::size_t note_before = 0;  // and in Evaluation::notes
    bool skips = false;           // some node's outcome is a skip
    bool notes = false;           // some node's outcome has notes
  };
  std::vector<Rule> rules;     // in registry order
  std::size_t skip_count = 0;  // skips once expanded: a rule's on every node whose outcome skips
  std::size_t note_count = 0;
};

// Every finding: Evaluation::findings and the shared ones expanded.
inline std::size_t finding_count(const Evaluation& ev) {
  return ev.findings.size() + (ev.shared_findings ? ev.shared_findings->count : 0);
}

// Every skip and note: Evaluation::skipped and notes, and the node rules' on nodes judged
// elsewhere.
inline std::size_t skip_count(const Evaluation& ev) {
  return ev.skipped.size() + (ev.shared_findings ? ev.shared_findings->skip_count : 0);
}
inline std::size_t note_count(const Evaluation& ev) {
  return ev.notes.size() + (ev.shared_findings ? ev.shared_findings->note_count : 0);
}
// Call fn(const RuleSkip&) for every skip (every note) in the order evaluate() records them: rule
// by rule, a node rule's node by node. A node rule's RuleSkip lives until fn returns.
void for_each_skip(const Evaluation& ev, const std::function<void(const RuleSkip&)>& fn);
void for_each_note(const Evaluation& ev, const std::function<void(const RuleSkip&)>& fn);

// Calls fn(const Finding&) for every finding in report order. A shared finding's Finding (its node
// set to one node's label) lives until fn returns.
void for_each_finding(const Evaluation& ev, const std::function<void(const Finding&)>& fn);

// Builds the entries of one node rule (evaluate() calls it as it meets them, with how many
// findings, skips and notes it recorded so far): for each node, in label order, the findings of
// its outcome of the rule at `column`; and counts its skips and notes.
void share_rule_findings(SharedFindings& s, std::uint32_t column, const Evaluation& so_far);
// Once every rule is in: the entries in report order.
void sort_shared_findings(SharedFindings& s);
// Every shared finding as a Finding of its own, labelled with its node, inserted into `findings`
// (not yet sorted) where evaluate() would have recorded it: rule by rule, node by node (for the
// passes that read the whole list: a run finding that subsumes node findings, one read in time).
void expand_shared_findings(const SharedFindings& s, std::vector<Finding>& findings);

}  // namespace trainready
