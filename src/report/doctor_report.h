#pragma once
// The immutable report model every doctor reporter renders.
#include <string>
#include <vector>

#include "core/severity.h"
#include "engine/engine.h"
#include "facts/node_facts.h"

namespace trainready {

inline constexpr int kReportSchemaVersion = 1;

enum class VerdictStatus { kReady, kReadyWithWarnings, kIncomplete, kNotReady };

struct Verdict {
  VerdictStatus status = VerdictStatus::kReady;
  std::string line;  // one line for humans
};

struct DoctorReport {
  std::string tool_version;
  std::string catalog_origin;
  std::vector<NodeFacts> nodes;
  Evaluation evaluation;
  Verdict verdict;
  Severity fail_on = Severity::kError;
  int exit_code = 0;
};

Verdict compute_verdict(const Evaluation& ev, std::size_t node_count);
// 1 when a finding is at or above fail_on, else 0.
int exit_code_for(const Evaluation& ev, Severity fail_on);
std::string verdict_status_name(VerdictStatus s);
DoctorReport make_doctor_report(std::vector<NodeFacts> nodes, Evaluation ev,
                                std::string catalog_origin, std::string tool_version,
                                Severity fail_on);

}  // namespace trainready
