#pragma once
// What a rule produces: one problem, with the evidence that shows it, its likely cause, and the
// fix.
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/line_time.h"
#include "core/severity.h"

namespace trainready {

struct Evidence {
  std::string text;  // what was observed, quoted as the source shows it
  Provenance where;
};

// Where and when the failure a finding reads first showed in a log (issue 30 item 5).
struct FailureOnset {
  Provenance where;     // its first line; empty source: not a failure in time (a setting, a
                        // version, a topology), ordered by severity and rank alone
  LineTime time;        // that line's timestamp, unknown when the line carries none
  std::string process;  // the "host:pid" that printed it, "" when the line names none
  bool empty() const { return where.source.empty(); }
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
  // Run findings that read a failure in a log: when it first showed. The engine puts an earlier
  // failure above a consequence that follows it (src/engine/failure_order.h).
  FailureOnset onset;
  // What it reads usually follows another failure when one came before it (a sticky CUDA error
  // after a network failure, a peer that exited, a watchdog timeout, a flushed work request):
  // it ranks below the first failure in time before it.
  bool consequence = false;
  // Its fix is general advice for the failure, not chosen by the line's context: a rule's
  // fallback, or a knowledge-base reading whose cause no `when` decided. The first supporting
  // reading (src/rules/supporting_readings.h) folded into such a finding whose fix the context
  // did decide replaces it; any other is appended.
  bool general_fix = false;
};

}  // namespace trainready
