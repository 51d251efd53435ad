#pragma once
// The one report model. Every command ends in it (facts -> rules -> Report) and every reporter
// (text, json, sarif, junit, prom, html) renders it: the verdict, the rules' findings, and what
// was judged. A command fills the parts it has; a reporter renders what is there and computes
// nothing. Built by make_report(), never changed afterwards.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/collective_harness.h"
#include "bench/storage_run.h"
#include "core/severity.h"
#include "engine/engine.h"
#include "engine/suppressions.h"
#include "facts/deployment_facts.h"
#include "facts/nccl_run_facts.h"
#include "facts/nccl_tests_facts.h"
#include "facts/node_facts.h"
#include "facts/stage_facts.h"
#include "facts/storage_bench_facts.h"
#include "plan/plan.h"
#include "queries/busbw_expectation.h"

namespace trainready {

// 2: one model for every command (lint's "clean"/"warnings" became "ok"/"ok_with_warnings";
// every report has "runs", one per rule evaluation).
inline constexpr int kReportSchemaVersion = 2;

// Four outcomes, the same for every command; the words differ only between a node ("READY") and
// anything else ("OK").
enum class VerdictStatus { kReady, kReadyWithWarnings, kIncomplete, kNotReady };

struct Verdict {
  VerdictStatus status = VerdictStatus::kReady;
  std::string line;  // one line for humans, starting with the verdict word
};

// What `lint` read besides the facts the rules judged.
struct LintInputs {
  std::vector<std::string> files;
  std::size_t resources = 0;
  std::vector<SuppressedFinding> suppressed;
  std::vector<std::string> input_notes;           // what the readers could not resolve
  std::vector<std::string> suppression_warnings;  // expired or unknown suppressions
  std::vector<InputProblem> input_errors;         // files that could not be read (exit 2)
};

// `bench allreduce` (and the other collectives): the sweep as measured.
struct CollectiveRun {
  HarnessOptions options;
  HarnessResult result;
};

struct Report {
  std::string command;  // doctor, nccl, nccl-tests, lint, plan, bench allreduce, bench storage
  std::string tool_version;
  std::string catalog_origin;
  Evaluation evaluation;
  Verdict verdict;
  Severity fail_on = Severity::kError;
  int exit_code = 0;

  RunOptions options;  // what the rules were told: --sku, --nodes, --efficiency

  // What was judged; each part optional.
  std::vector<NodeFacts> nodes;
  std::shared_ptr<const NcclRunFacts> nccl_log;
  std::shared_ptr<const NcclTestsFacts> nccl_tests;  // a file, or a bench sweep read as one
  std::optional<BusbwExpectation> busbw_expected;    // with nccl_tests
  std::shared_ptr<const LintInputs> lint;
  std::shared_ptr<const Plan> plan;
  std::shared_ptr<const CollectiveRun> collective;
  std::shared_ptr<const StorageRun> storage;
  std::shared_ptr<const StorageBenchFacts> storage_facts;  // what the storage rule judged
  std::shared_ptr<const StageFacts> stage;  // `stage`: what was copied or verified
};

// How a reporter lays out text: colour (a terminal) and plan --explain.
struct RenderStyle {
  bool color = false;
  bool explain = false;
};

// The verdict words, shared by every reporter: "ready", "ok_with_warnings", ...
std::string verdict_status_name(VerdictStatus s, const std::string& command);
// Rule evaluations that judged only part of their facts (distinct rule and node among the
// notes): they make the verdict INCOMPLETE and count as "skipped in part".
std::size_t partly_evaluated(const Evaluation& ev);
// 1 when a finding is at or above fail_on, else 0.
int exit_code_for(const Evaluation& ev, Severity fail_on);
// Fills verdict and exit code from the evaluation and what was judged.
void finish_report(Report& r, Severity fail_on);

}  // namespace trainready
