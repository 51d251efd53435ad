#pragma once
// What a rule produces: one problem, with the evidence that shows it, its likely cause, and the
// fix.
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/severity.h"

namespace trainready {

struct Evidence {
  std::string text;  // what was observed, quoted as the source shows it
  Provenance where;
};

struct Finding {
  std::string rule_id;
  Severity severity = Severity::kWarning;
  std::string node;  // label of the node it concerns; empty for cluster-wide findings
  // Cluster findings that blame some nodes (the ones that differ from the majority): their
  // labels, so a per-node table can mark them.
  std::vector<std::string> nodes;
  std::string message;  // one line: what is wrong
  std::vector<Evidence> evidence;
  std::string cause;
  std::string fix;
  // Rule ids of node findings this one explains: the engine folds them into it, so one cause
  // reads as one finding (NET/Socket in the log + ports Polling on the node).
  std::vector<std::string> subsumes;
  // Deployment findings: the resource (ARM name / Terraform address / VM) and the property at
  // fault, which SARIF reports as the physical location.
  std::string resource;
  Provenance location;
  // Within one severity, how likely this finding is the root cause the others follow from
  // (higher first): a version or plugin mismatch outranks the hang it causes. 0 = no opinion.
  int rank = 0;
};

}  // namespace trainready
