#include "engine/suppressions.h"

#include <algorithm>
#include <map>

#include "rules/registry.h"

namespace trainready {
namespace {

bool resource_matches(const std::string& pattern, const Finding& f, const DeploymentResource* r) {
  if (pattern.empty() || pattern == "*") return true;
  auto match = [&](const std::string& name) {
    if (!pattern.empty() && pattern.back() == '*')
      return name.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
    return name == pattern;
  };
  if (match(f.resource)) return true;
  return r != nullptr && (match(r->name) || match(r->address));
}

const DeploymentResource* resource_of(const Finding& f,
                                      const std::map<std::string, const DeploymentResource*>& by) {
  auto it = by.find(f.resource);
  return it == by.end() ? nullptr : it->second;
}

}  // namespace

SuppressionOutcome apply_suppressions(Evaluation* ev, const DeploymentFacts& facts,
                                      const std::vector<SuppressionEntry>& entries,
                                      const std::string& today) {
  SuppressionOutcome out;
  std::vector<bool> live(entries.size(), true);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    if (e.rule != "*" && find_rule(e.rule) == nullptr)
      out.warnings.push_back(e.where.str() + ": suppression names unknown rule '" + e.rule + "'");
    if (!e.expires.empty() && e.expires < today) {
      live[i] = false;
      out.warnings.push_back(e.where.str() + ": suppression of " + e.rule +
                             (e.resource.empty() ? "" : " for " + e.resource) + " expired on " +
                             e.expires + "; no longer applied");
    }
  }
  bool any = std::find(live.begin(), live.end(), true) != live.end();
  for (const auto& r : facts.resources) {
    any = any || !r.suppressions.empty();
    for (const auto& [rule, why] : r.suppressions) {
      if (find_rule(rule) == nullptr)
        out.warnings.push_back(r.suppressions_where.str() +
                               ": inline suppression names unknown "
                               "rule '" +
                               rule + "'");
    }
  }
  // Nothing can be suppressed: the findings stay as they are, and no index of every resource
  // by name is built beside the facts (lint's peak memory is here, after the rules).
  if (!any) return out;
  std::map<std::string, const DeploymentResource*> by;
  for (const auto& r : facts.resources) {
    by.emplace(r.address, &r);
    by.emplace(r.name, &r);
  }
  std::vector<Finding> kept;
  for (Finding& f : ev->findings) {
    const DeploymentResource* r = resource_of(f, by);
    bool done = false;
    if (r != nullptr) {
      for (const auto& [rule, why] : r->suppressions) {
        if (rule != f.rule_id && rule != "*") continue;
        out.suppressed.push_back({f, why, "inline", r->suppressions_where});
        done = true;
        break;
      }
    }
    for (std::size_t i = 0; !done && i < entries.size(); ++i) {
      const auto& e = entries[i];
      if (!live[i] || (e.rule != f.rule_id && e.rule != "*")) continue;
      if (!resource_matches(e.resource, f, r)) continue;
      out.suppressed.push_back({f, e.justification, "file", e.where});
      done = true;
    }
    if (!done) kept.push_back(std::move(f));
  }
  ev->findings = std::move(kept);
  // A rule whose every finding was suppressed was accepted on purpose: its evaluation reads as
  // skipped, with the justification, not as a failure. Only lint applies suppressions, and
  // lint never holds a fleet's folded node runs (engine/folded_runs.h), which this does not
  // update.
  for (RuleRun& run : ev->runs) {
    if (run.outcome != RuleRun::Outcome::kFailed) continue;
    bool left = false;
    for (const Finding& f : ev->findings) left = left || f.rule_id == run.rule_id;
    if (left) continue;
    for (const SuppressedFinding& s : out.suppressed) {
      if (s.finding.rule_id != run.rule_id) continue;
      run.outcome = RuleRun::Outcome::kSkipped;
      run.detail = "suppressed (" + s.kind + "): " + s.justification;
      break;
    }
  }
  return out;
}

}  // namespace trainready
