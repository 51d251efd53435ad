#include "fleet/judged_gatherer.h"

#include <map>
#include <set>

#include "codec/node_facts_wire.h"
#include "fleet/fleet_message.h"
#include "rules/registry.h"

namespace trainready {

std::vector<std::string> node_rule_ids(const RuleSelection& selection) {
  std::vector<std::string> out;
  for (const auto& rule : all_rules()) {
    std::string id(rule->id());
    if (rule->scope() == RuleScope::kNode && selection.wants(id)) out.push_back(std::move(id));
  }
  return out;
}

JudgedGatherer::JudgedGatherer(int size, int group, std::string root_version,
                               std::vector<std::string> node_rule_ids)
    : size_(size),
      group_(group < 1 ? 1 : group),
      leaders_(size, std::move(root_version)),
      rule_ids_(std::move(node_rule_ids)),
      parts_(static_cast<std::size_t>((size + group_ - 1) / group_)) {
  judged_.rule_ids = rule_ids_;
}

void JudgedGatherer::accept_hello(int leader, std::string_view bytes, double t) {
  if (leader % group_ == 0) leaders_.accept(leader, bytes, t);
}

void JudgedGatherer::accept_judgement(int leader, std::string_view bytes, double t) {
  if (leader <= 0 || leader % group_ != 0) return;
  GroupJudgement j;
  try {
    j = decode_group_judgement(bytes);
    if (j.first != leader ||
        j.ranks.size() != static_cast<std::size_t>(std::min(group_, size_ - leader)))
      throw WireError("group judgement: not the group of rank " + std::to_string(leader));
  } catch (const WireError& e) {
    leaders_.refuse(leader, std::string("its judgement as a group leader: ") + e.what(), t,
                    bytes.size());
    return;
  }
  add(std::move(j));
}

void JudgedGatherer::add(GroupJudgement j) {
  const auto slot = static_cast<std::size_t>(j.first / group_);
  if (slot >= parts_.size() || parts_[slot]) return;
  // The leader's outcomes and patterns as the fleet's: a rule rank 0 runs that the leader did not
  // (another trainready) is skipped on its nodes, saying so.
  std::vector<std::uint32_t> outcome(j.outcomes.size());
  for (std::size_t i = 0; i < j.outcomes.size(); ++i) {
    key_.clear();
    encode_rule_outcome(key_, j.outcomes[i]);
    auto [it, fresh] =
        outcome_ids_.emplace(key_, static_cast<std::uint32_t>(judged_.outcomes.size()));
    if (fresh) judged_.outcomes.push_back(std::move(j.outcomes[i]));
    outcome[i] = it->second;
  }
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < j.rule_ids.size(); ++i) at[j.rule_ids[i]] = i;
  std::optional<std::uint32_t> not_run;
  std::vector<std::uint32_t> pattern(j.patterns.size());
  for (std::size_t p = 0; p < j.patterns.size(); ++p) {
    std::vector<std::uint32_t> mine;
    mine.reserve(rule_ids_.size());
    for (const std::string& id : rule_ids_) {
      auto it = at.find(id);
      if (it != at.end()) {
        mine.push_back(outcome[j.patterns[p][it->second]]);
        continue;
      }
      if (!not_run) {
        RuleOutcome o =
            RuleOutcome::skip("its group leader, rank " + std::to_string(j.first) +
                              " (trainready " + j.tool_version + "), does not run this rule");
        key_.clear();
        encode_rule_outcome(key_, o);
        auto [o_it, fresh] =
            outcome_ids_.emplace(key_, static_cast<std::uint32_t>(judged_.outcomes.size()));
        if (fresh) judged_.outcomes.push_back(std::move(o));
        not_run = o_it->second;
      }
      mine.push_back(*not_run);
    }
    key_.assign(reinterpret_cast<const char*>(mine.data()), mine.size() * sizeof(mine[0]));
    auto [it, fresh] =
        pattern_ids_.emplace(key_, static_cast<std::uint32_t>(judged_.patterns.size()));
    if (fresh) judged_.patterns.push_back(std::move(mine));
    pattern[p] = it->second;
  }
  Part part;
  part.ranks = std::move(j.ranks);
  part.labels = std::move(j.nodes.labels);
  part.digest_of.reserve(part.labels.size());
  for (std::size_t i = 0; i < part.labels.size(); ++i) {
    part.digest_of.push_back(digests_.intern(j.nodes.digests[j.nodes.digest_of[i]]));
    part.pattern_of.push_back(pattern[j.pattern_of[i]]);
  }
  part.facts = std::move(j.facts);
  parts_[slot] = std::move(part);
  ++received_;
}

JudgedFleet JudgedGatherer::finish(double gather_s, double timeout_s, const std::string& launcher) {
  FleetGather heard = leaders_.finish(gather_s, timeout_s, launcher);
  JudgedFleet out;
  out.fleet = std::move(heard.fleet);
  std::set<std::string> labels;
  ClusterNodesBuilder& nodes = digests_;
  for (std::size_t g = 0; g < parts_.size(); ++g) {
    const std::size_t first = g * static_cast<std::size_t>(group_);
    if (!parts_[g]) continue;  // its ranks keep what rank 0 heard: silent, or a leader stalled
    Part& p = *parts_[g];
    for (std::size_t k = 0; k < p.ranks.size(); ++k) {
      FleetRank r = std::move(p.ranks[k]);
      FleetRank& row = out.fleet.ranks[first + k];
      if (r.hello_s < 0) r.hello_s = row.hello_s;  // a leader's hello came to rank 0
      if (r.node >= 0) {
        std::string label = std::move(p.labels[static_cast<std::size_t>(r.node)]);
        const std::uint32_t digest = p.digest_of[static_cast<std::size_t>(r.node)];
        const std::uint32_t pattern = p.pattern_of[static_cast<std::size_t>(r.node)];
        // As FleetGatherer::finish: ranks on one host would be indistinguishable.
        if (!labels.insert(label).second) {
          label += "#" + std::to_string(first + k);
          labels.insert(label);
        }
        if (!p.facts.empty()) {
          NodeFacts n;
          try {
            RankMessage m = decode_rank_message(p.facts[static_cast<std::size_t>(r.node)]);
            if (m.facts) n = std::move(*m.facts);
          } catch (const WireError&) {  // judged by its leader; only its facts are not shown
          }
          n.label = label;
          out.nodes.push_back(std::move(n));
        }
        r.node = static_cast<int>(nodes.nodes().size());
        nodes.add(std::move(label), digest);
        out.judged.pattern_of.push_back(pattern);
      }
      row = std::move(r);
    }
    p = Part{};
  }
  out.cluster = nodes.take();
  judged_.pattern_of = std::move(out.judged.pattern_of);
  out.judged = std::move(judged_);
  return out;
}

}  // namespace trainready
