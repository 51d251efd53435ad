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
#include "facts/fleet_facts.h"
#include "facts/nccl_run_facts.h"
#include "facts/nccl_tests_facts.h"
#include "facts/node_facts.h"
#include "facts/pair_bandwidth_facts.h"
#include "facts/stage_facts.h"
#include "facts/storage_bench_facts.h"
#include "facts/watch_facts.h"
#include "plan/acceptance.h"
#include "plan/plan.h"
#include "queries/busbw_expectation.h"
#include "queries/busbw_from_log.h"

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

// `fleet`: one row per rank (its node's verdict), and the findings grouped by cause (rule), each
// with the nodes it concerns. Computed by the fleet command after the rules ran.
struct FleetNodeRow {
  int rank = 0;
  std::string host;
  std::string node;     // the node's label (findings use it), or "rank N (host)" without facts
  std::string state;    // fleet_rank_state_name
  std::string verdict;  // "ready", "warnings", "not_ready", "no_facts"
  std::size_t errors = 0;
  std::size_t warnings = 0;
  std::size_t notes = 0;
  std::vector<std::string> rules;  // ids of the findings that concern it, sorted
};

struct FleetCauseGroup {
  std::string rule_id;
  Severity severity = Severity::kWarning;
  std::string title;
  std::vector<std::string> nodes;     // the nodes it concerns; empty: the whole cluster
  std::vector<std::size_t> findings;  // indices into Report::evaluation.findings
};

struct FleetSummary {
  std::vector<FleetNodeRow> rows;
  std::vector<FleetCauseGroup> groups;  // most severe first, then most nodes
  std::size_t ready = 0;                // rows by verdict
  std::size_t warnings = 0;
  std::size_t not_ready = 0;
  std::size_t no_facts = 0;
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
  // What the cluster rules compared, a label per node (run_rules builds it from `nodes`; a fleet
  // judged by group leaders has it without the nodes' facts).
  std::shared_ptr<const ClusterNodes> cluster_nodes;
  std::shared_ptr<const JudgedNodes> judged_nodes;  // fleet: node rules run by group leaders
  std::shared_ptr<const NcclRunFacts> nccl_log;
  std::shared_ptr<const NcclTestsFacts> nccl_tests;  // a file, or a bench sweep read as one
  std::optional<BusbwExpectation> busbw_expected;    // with nccl_tests
  // With nccl_tests and nccl_log both: what the log says of the table's busbw.
  std::optional<BusbwFromLog> busbw_from_log;
  std::shared_ptr<const LintInputs> lint;
  std::shared_ptr<const Plan> plan;
  std::shared_ptr<const CollectiveRun> collective;
  std::shared_ptr<const StorageRun> storage;
  std::shared_ptr<const StorageBenchFacts> storage_facts;  // what the storage rule judged
  std::shared_ptr<const PairBandwidthFacts> pairs;    // `fleet --bandwidth`: matrix + all-reduce
  std::shared_ptr<const FleetFacts> fleet;            // `fleet`: the ranks
  std::shared_ptr<const FleetSummary> fleet_summary;  // `fleet`: table and groups
  std::shared_ptr<const StageFacts> stage;            // `stage`: what was copied or verified
  std::shared_ptr<const WatchFacts> watch;  // `watch`: the labelled timeline's totals per node
  std::shared_ptr<const PlanAcceptance> acceptance;  // `plan --check`: plan vs measured
  // `nccl` with NCCL RAS reports, Flight Recorder dumps or Inspector output beside the logs.
  std::shared_ptr<const CollectiveProgressFacts> progress;
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
