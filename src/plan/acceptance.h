#pragma once
// Acceptance against the plan (`plan --check PLAN.json --measured FILE...`): what the cluster
// measured (`fleet`, `bench`, `bench storage`) replaces the plan's assumptions, the plan's
// recommended candidate is recomputed through the same models (comm_model, data_model,
// step_model, cost_model), and each assumption is set beside its measurement with what it costs
// alone. The rules plan-assumption-broken and plan-cluster-misses-plan judge the result; the
// reporters show it. Reading the files is acceptance_inputs.cpp's job.
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "plan/comm_model.h"
#include "plan/cost_model.h"
#include "plan/data_model.h"
#include "plan/quantity.h"
#include "plan/step_model.h"

namespace trainready {

// The recommended candidate of a plan JSON, as the models need it: every input of its
// communication, data, step and cost estimates, and the figures it predicted.
struct PlannedRun {
  std::string file;     // the plan JSON as named on the command line
  std::string catalog;  // the catalog the plan was made with ("builtin:data/catalog.json")
  std::string sku;
  int vms = 0;
  int gpus = 0;
  int gpus_per_vm = 0;
  int tp = 1;
  int pp = 1;
  int dp = 1;
  double tokens_per_step = 0;
  double total_tokens = 0;
  CommInputs comm;              // busbw: the data-parallel group's, as planned
  double allreduce_busbw = 0;   // B/s over every GPU of the job (what a sweep over all measures)
  double gradient_message = 0;  // B: one all-reduce of a GPU's gradients, b_g·Ψ'
  ModelParallelInputs model_parallel;  // tp_busbw, pp_bytes_per_s: as planned
  double tp_message = 0;               // B: one tensor-parallel all-reduce, s·b·h·bytes
  DataInputs data;                     // sku and storage: null (filled from the catalog)
  double delivered_per_vm = 0;         // B/s the plan's storage option delivers to each VM
  std::string storage_name;            // the plan's chosen option
  std::optional<PriceChoice> price;
  // What the plan predicted, for the consistency check and the comparison.
  double step_seconds = 0;
  double run_seconds = 0;
  std::optional<double> cost_per_run;
};

// A bus-bandwidth sweep: busbw at each message size (nccl-tests' out-of-place column).
struct BusbwPoint {
  double size_bytes = 0;
  double busbw = 0;  // B/s
};

struct BusbwSweep {
  std::string file;
  std::string origin;  // "bench all_reduce, 16 ranks" / "fleet --bandwidth all-reduce, 16 ranks"
  int ranks = 0;
  std::vector<BusbwPoint> points;  // ascending size
};

struct SlowestLink {
  std::string file;
  std::string pair;        // "nd-0 - nd-3, rail 2"
  double bytes_per_s = 0;  // per direction
  double size_bytes = 0;
  int rails = 1;  // pairs per node pair measured at once (one per local rank)
  double median_bytes_per_s = 0;
};

struct StorageFeed {
  std::string file;
  std::string origin;  // "bench storage raw read of PATH (read, bs 1 MiB, O_DIRECT)"
  double bytes_per_s = 0;
  bool lower_bound = false;  // a feed search where every trial met the demand
};

// What the measured files held, sorted by what they measure.
struct Measurements {
  std::vector<std::string> files;
  std::vector<BusbwSweep> inter_vm;  // all-reduce over more GPUs than one VM holds
  std::vector<BusbwSweep> intra_vm;  // all-reduce inside one VM
  std::optional<SlowestLink> slowest_link;
  std::vector<StorageFeed> storage;
  std::vector<std::string> notes;  // what was read but not used, and why
};

// The interpolated busbw of a sweep at `size` (B/s): log-linear in size between measured
// points, the nearest end beyond them (`clamped` says so).
double busbw_at(const BusbwSweep& sweep, double size, bool* clamped = nullptr);

// One assumption of the plan against its measurement.
struct AssumptionCheck {
  std::string id;     // inter-vm-busbw, intra-vm-busbw, slowest-link, storage-feed
  std::string what;   // "all-reduce bus bandwidth over all 16 GPUs at 16.1 GB"
  Quantity assumed;   // B/s, with where the plan took it from
  Quantity measured;  // B/s, with the file and how it was read
  double ratio = 0;   // measured / assumed
  std::vector<std::string> notes;
  // The plan recomputed with only this measurement in place of its assumption.
  double step_seconds = 0;
  double run_seconds = 0;
  std::optional<double> cost_per_run;
};

struct PlanAcceptance {
  PlannedRun planned;
  std::vector<std::string> measured_files;
  std::vector<std::string> notes;
  std::vector<AssumptionCheck> checks;
  double margin = 0.10;  // --margin, a fraction
  // The plan recomputed with every measurement in place.
  CommEstimate comm;
  ModelParallelEstimate model_parallel;
  DataEstimate data;
  StepEstimate step;
  std::optional<CostEstimate> cost;
  Quantity step_ratio;  // recomputed step / planned step
};

// Recomputes `planned` with `measured` in place of its assumptions. The SKU and storage catalog
// feed the data model. Throws InputError(planned.file) when the plan's own inputs do not give
// back its own predictions (edited by hand, or another version's models).
PlanAcceptance check_plan(const PlannedRun& planned, const Measurements& measured,
                          const SkuEntry& sku, const StorageCatalog& storage, double margin);

}  // namespace trainready
