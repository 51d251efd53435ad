#pragma once
// The immutable report model of `trainready lint`, rendered as text, JSON or SARIF 2.1.0.
#include <string>
#include <vector>

#include "core/severity.h"
#include "engine/engine.h"
#include "engine/suppressions.h"
#include "facts/deployment_facts.h"

namespace trainready {

struct LintReport {
  std::string tool_version;
  std::vector<std::string> files;
  std::size_t resources = 0;
  Evaluation evaluation;  // findings left after suppressions
  std::vector<SuppressedFinding> suppressed;
  std::vector<std::string> input_notes;  // what the readers could not resolve
  std::vector<std::string> warnings;     // expired or unknown suppressions
  std::string status;                    // clean, warnings, problems
  std::string verdict;                   // one line for humans
  Severity fail_on = Severity::kError;
  int exit_code = 0;
};

LintReport make_lint_report(const DeploymentFacts& facts, Evaluation ev,
                            SuppressionOutcome suppressions, std::string tool_version,
                            Severity fail_on);

// Where rule documentation lives, for SARIF helpUri and JSON "doc".
std::string rule_doc_url(const std::string& rule_id);

}  // namespace trainready
