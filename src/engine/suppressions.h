#pragma once
// Applies suppressions to a deployment evaluation: the inline ones on each resource and the
// sidecar file's. A suppressed finding leaves the findings (and SARIF results) but is counted
// and listed in every output; an expired sidecar entry no longer applies and says so.
#include <string>
#include <vector>

#include "core/finding.h"
#include "engine/engine.h"
#include "facts/deployment_facts.h"
#include "facts/suppression_entry.h"

namespace trainready {

struct SuppressedFinding {
  Finding finding;
  std::string justification;
  std::string kind;  // inline, file
  Provenance where;  // the suppression
};

struct SuppressionOutcome {
  std::vector<SuppressedFinding> suppressed;
  std::vector<std::string> warnings;  // expired entries, unknown rule ids
};

// `today`: YYYY-MM-DD. Moves suppressed findings out of ev.findings.
SuppressionOutcome apply_suppressions(Evaluation* ev, const DeploymentFacts& facts,
                                      const std::vector<SuppressionEntry>& entries,
                                      const std::string& today);

}  // namespace trainready
