#pragma once
// The immutable report model every doctor reporter renders.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/severity.h"
#include "engine/engine.h"
#include "facts/busbw_expectation.h"
#include "facts/nccl_run_facts.h"
#include "facts/nccl_tests_facts.h"
#include "facts/node_facts.h"

namespace trainready {

inline constexpr int kReportSchemaVersion = 1;

enum class VerdictStatus { kReady, kReadyWithWarnings, kIncomplete, kNotReady };

struct Verdict {
  VerdictStatus status = VerdictStatus::kReady;
  std::string line;  // one line for humans
};

struct DoctorReport {
  std::string command = "doctor";  // doctor, nccl, nccl-tests
  std::string tool_version;
  std::string catalog_origin;
  std::vector<NodeFacts> nodes;
  std::shared_ptr<const NcclRunFacts> nccl_log;      // nccl, doctor --nccl-log
  std::shared_ptr<const NcclTestsFacts> nccl_tests;  // nccl-tests, doctor --nccl-tests
  std::optional<BusbwExpectation> busbw_expected;    // with nccl_tests
  Evaluation evaluation;
  Verdict verdict;
  Severity fail_on = Severity::kError;
  int exit_code = 0;
};

// `command` picks the wording: a node is READY / NOT READY, a run is OK / NOT OK.
Verdict compute_verdict(const Evaluation& ev, std::size_t node_count,
                        const std::string& command = "doctor");
// 1 when a finding is at or above fail_on, else 0.
int exit_code_for(const Evaluation& ev, Severity fail_on);
std::string verdict_status_name(VerdictStatus s, const std::string& command = "doctor");
DoctorReport make_doctor_report(std::vector<NodeFacts> nodes, Evaluation ev,
                                std::string catalog_origin, std::string tool_version,
                                Severity fail_on, const std::string& command = "doctor");

}  // namespace trainready
